//! The server home: persistent attributes, resources, queues, tree and usage; the qmgr language.
