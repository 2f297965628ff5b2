//! Usage accounting from finished-job records, and the decay models of PBS, Slurm and flux.
