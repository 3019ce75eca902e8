//! The report of one measurement: every workload's statistics and the summary, with the
//! command lines that were run.

use std::path::Path;

use crate::analysis::summary::{self, Entrants};
use crate::machine::Machine;
use crate::measure::Contestant;
use crate::results::counts::Counts;
use crate::results::measured::Measured;
use crate::results::report::{Report, Settings};
use crate::workloads::{Workload, WorkloadSet};

/// One workload's measurements and instruction counts, by variant.
pub struct Results<'a> {
    workload: &'a Workload,
    measured: &'a Measured,
    counts: &'a [Option<Counts>],
}

impl<'a> Results<'a> {
    /// Each workload of `set` with its measurements and counts (`counts[workload]`).
    pub fn by_workload(
        set: &'a WorkloadSet,
        measured: &'a [Measured],
        counts: &'a [Vec<Option<Counts>>],
    ) -> Vec<Results<'a>> {
        set.workloads
            .iter()
            .zip(measured)
            .zip(counts)
            .map(|((workload, measured), counts)| Results {
                workload,
                measured,
                counts,
            })
            .collect()
    }
}

/// The report of every workload's results, relative to the first contestant.
pub fn assemble(
    header: (String, Settings, Machine),
    contestants: &[Contestant],
    results: &[Results],
    scratch: &Path,
) -> Report {
    let (name, settings, machine) = header;
    let names: Vec<String> = contestants.iter().map(|c| c.variant.clone()).collect();
    let workloads: Vec<_> = results
        .iter()
        .map(|r| {
            let args = r.workload.args_in(scratch).join(" ");
            let commands: Vec<String> = contestants
                .iter()
                .map(|c| format!("{} {args}", c.binary.display()))
                .collect();
            let entrants = Entrants {
                variants: &names,
                commands: &commands,
                counts: r.counts,
            };
            summary::workload_report(
                &r.workload.name,
                &r.workload.command_line(),
                &entrants,
                r.measured,
            )
        })
        .collect();
    Report {
        name,
        settings,
        machine,
        summary: summary::summary(&names, &workloads),
        workloads,
    }
}
