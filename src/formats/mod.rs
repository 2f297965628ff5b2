//! Readers (and writers) of the real schedulers' files, producing fairsort's in-memory models.
