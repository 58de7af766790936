//! A progress bar on stderr for long runs: only when stderr is a terminal (not `TERM=dumb`),
//! only once a run has taken a second, redrawn at most ten times a second, and erased when
//! the run ends, so short runs, pipes and files never see it.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

const DELAY: Duration = Duration::from_secs(1);
const REDRAW: Duration = Duration::from_millis(100);
const WIDTH: usize = 24;

pub struct Progress {
    enabled: bool,
    start: Instant,
    last_draw: Option<Instant>,
}

impl Progress {
    /// A bar that draws only if stderr is a terminal that understands the erase sequence.
    pub fn new() -> Progress {
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        Progress {
            enabled: std::io::stderr().is_terminal() && !dumb,
            start: Instant::now(),
            last_draw: None,
        }
    }

    /// Shows `fraction` (0..1) done and `what` is being done; always returns true (the
    /// engine's callbacks may cancel; the CLI never does).
    pub fn show(&mut self, what: &str, fraction: f64) -> bool {
        if !self.enabled {
            return true;
        }
        let now = Instant::now();
        let elapsed = now - self.start;
        if elapsed < DELAY || self.last_draw.is_some_and(|t| now - t < REDRAW) {
            return true;
        }
        self.last_draw = Some(now);
        let f = fraction.clamp(0.0, 1.0);
        let filled = (f * WIDTH as f64).round() as usize;
        let left = if f > 0.01 {
            format!(", ~{} left", seconds(elapsed.as_secs_f64() * (1.0 - f) / f))
        } else {
            String::new()
        };
        let _ = write!(
            std::io::stderr(),
            "\r\x1b[2K{what} [{}{}] {:>3.0} % {}{left}",
            "#".repeat(filled),
            "-".repeat(WIDTH - filled),
            f * 100.0,
            seconds(elapsed.as_secs_f64())
        );
        true
    }

    /// The callback for `run_sweep`: `done` of `total` simulations.
    pub fn sweep(&mut self, done: u64, total: u64) -> bool {
        let what = format!("sweep: run {done}/{total}");
        self.show(&what, done as f64 / total.max(1) as f64)
    }

    /// The callback for `run_loaded`: `done` of `total` jobs of run `run` of `labels`.
    pub fn runs(&mut self, labels: &[String], run: usize, done: u64, total: u64) -> bool {
        let n = labels.len().max(1);
        let label = labels.get(run).map_or("", String::as_str);
        let label: String = label.chars().take(24).collect();
        let what = format!("run {}/{n} {label}", run + 1);
        let within = done as f64 / total.max(1) as f64;
        self.show(&what, (run as f64 + within) / n as f64)
    }
}

impl Drop for Progress {
    /// Erases the bar, so that results or an error message start on a clean line.
    fn drop(&mut self) {
        if self.last_draw.is_some() {
            let _ = write!(std::io::stderr(), "\r\x1b[2K");
        }
    }
}

fn seconds(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.0} s")
    } else {
        format!("{}:{:02} min", (s / 60.0) as u64, (s % 60.0) as u64)
    }
}
