//! The whole report as JSON (each workload's results in hyperfine's fields plus ours; the
//! per-workload files in hyperfine's own layout are [`super::hyperfine`]'s).

use crate::results::report::Report;

pub fn render(report: &Report) -> String {
    let mut text = serde_json::to_string_pretty(report).expect("a report always serializes");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture::{check_snapshot, fixed_report};

    #[test]
    fn matches_the_snapshot() {
        check_snapshot("report.json", &render(&fixed_report()));
    }
}
