//! Jobs, resources and units, binding keywords per job, ordering and explaining the queue.
