//! The PBS `job_sort_formula` language: parse (pest) → AST → compile (slots, folding) → eval.
