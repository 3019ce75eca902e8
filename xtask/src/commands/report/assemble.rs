//! The report of one measurement: every workload's statistics and the summary, with the
//! command lines that were run.

use std::path::Path;

use crate::analysis::attribution::{attribute, Instructions};
use crate::analysis::coverage::coverage;
use crate::analysis::summary::{self, Entrants};
use crate::machine::Machine;
use crate::measure::Contestant;
use crate::results::counts::{Counted, Counts};
use crate::results::coverage::ProfileRuns;
use crate::results::measured::Measured;
use crate::results::report::{Report, Settings, WorkloadReport};
use crate::results::samples::FunctionSamples;
use crate::workloads::{Workload, WorkloadSet};

/// How many functions (and modules) each "where the time moved" table shows.
pub const TOP_MOVED: usize = 6;

/// One workload's measurements, instruction counts and samples, by variant.
pub struct Results<'a> {
    workload: &'a Workload,
    measured: &'a Measured,
    counted: &'a [Option<Counted>],
    /// Empty when the variants were not sampled.
    samples: &'a [FunctionSamples],
}

impl<'a> Results<'a> {
    /// Each workload of `set` with its measurements, counts and samples
    /// (`counted[workload]`, `samples[workload]`; `samples` empty when none were taken).
    pub fn by_workload(
        set: &'a WorkloadSet,
        measured: &'a [Measured],
        counted: &'a [Vec<Option<Counted>>],
        samples: &'a [Vec<FunctionSamples>],
    ) -> Vec<Results<'a>> {
        set.workloads
            .iter()
            .enumerate()
            .map(|(i, workload)| Results {
                workload,
                measured: &measured[i],
                counted: &counted[i],
                samples: samples.get(i).map_or(&[], Vec::as_slice),
            })
            .collect()
    }
}

/// Where the time moved for each variant, and the profile's coverage of the workload
/// (from the baseline's samples) when a profile is given.
fn attribution(report: &mut WorkloadReport, r: &Results, profile: Option<&ProfileRuns>) {
    let Some((baseline, variants)) = r.samples.split_first() else {
        return;
    };
    let ir = |i: usize| r.counted[i].as_ref().map(|c| &c.by_function);
    report.moved = variants
        .iter()
        .enumerate()
        .map(|(k, samples)| {
            let instructions = Instructions {
                baseline: ir(0),
                variant: ir(k + 1),
            };
            let name = &report.results[k + 1].variant;
            attribute(name, baseline, samples, instructions, TOP_MOVED)
        })
        .collect();
    report.coverage = profile.map(|p| coverage(&r.workload.name, baseline, p));
}

/// The report of every workload's results, relative to the first contestant.
pub fn assemble(
    header: (String, Settings, Machine),
    contestants: &[Contestant],
    results: &[Results],
    profile: Option<&ProfileRuns>,
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
            let counts: Vec<Option<Counts>> = r
                .counted
                .iter()
                .map(|c| c.as_ref().map(|c| c.totals))
                .collect();
            let entrants = Entrants {
                variants: &names,
                commands: &commands,
                counts: &counts,
            };
            let mut report = summary::workload_report(
                &r.workload.name,
                &r.workload.command_line(),
                &entrants,
                r.measured,
            );
            attribution(&mut report, r, profile);
            report
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
