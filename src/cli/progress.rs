//! A progress bar on stderr for long commands, shared by every subcommand: drawn only when
//! stderr is a terminal and only once the work has run for [`DELAY`], so short runs, pipes,
//! scripts and tests see nothing. The library reports progress through callbacks; this is
//! where it becomes a bar.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// How long the work runs before the bar appears.
pub const DELAY: Duration = Duration::from_secs(2);

/// A progress bar for `total` units of work, labelled; hidden unless stderr is a terminal and
/// the work outlasts [`DELAY`].
pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    /// Whether the bar may ever be drawn (stderr is a terminal).
    tty: bool,
    shown: bool,
}

impl Progress {
    /// A bar for `total` units labelled `label` (e.g. "replay").
    pub fn new(total: u64, label: &str) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(
            "{msg} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} (eta {eta})",
        ) {
            bar.set_style(style);
        }
        bar.set_message(label.to_string());
        Progress {
            bar,
            started: Instant::now(),
            tty: std::io::stderr().is_terminal(),
            shown: false,
        }
    }

    /// Adds `n` units done.
    #[allow(dead_code)] // The shared API: `usage record` and `replay` set positions instead.
    pub fn inc(&mut self, n: u64) {
        self.bar.inc(n);
        self.show_if_slow();
    }

    /// Sets the units done to `done`.
    pub fn set(&mut self, done: u64) {
        self.bar.set_position(done);
        self.show_if_slow();
    }

    /// Moves to stage `done` of the total, named `label` (a command made of a few long steps).
    pub fn stage(&mut self, done: u64, label: &str) {
        self.bar.set_message(label.to_string());
        self.set(done);
    }

    /// Changes the total.
    pub fn set_total(&mut self, total: u64) {
        self.bar.set_length(total);
    }

    /// Removes the bar (nothing is left on the terminal).
    pub fn finish(self) {
        self.bar.finish_and_clear();
    }

    /// Whether the bar has been drawn.
    #[cfg(test)]
    pub fn is_shown(&self) -> bool {
        self.shown
    }

    fn show_if_slow(&mut self) {
        if self.tty && !self.shown && self.started.elapsed() >= DELAY {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
    }
}

/// A replay reports its events (submissions and finishes) done out of the total.
impl fairsort::replay::Progress for Progress {
    fn update(&mut self, done: u64, total: u64) {
        if self.bar.length() != Some(total) {
            self.set_total(total);
        }
        self.set(done);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_shown_before_the_delay() {
        let mut p = Progress::new(10, "test");
        p.inc(3);
        p.set(7);
        assert!(!p.is_shown(), "a short run draws nothing");
        assert_eq!(p.bar.position(), 7);
        p.finish();
    }
}
