//! The `fairsort` command: a thin layer over the library (see `fairsort::cli`).

fn main() -> std::process::ExitCode {
    fairsort::cli::main()
}
