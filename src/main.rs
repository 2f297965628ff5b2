//! The `fairsort` command: a thin shell over the library (argument parsing, tables, JSON/CSV
//! output, carets); the work is done by `fairsort::*`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
