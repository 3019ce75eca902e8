//! `logicars presets`: the hyperparameters each task trains with unless a flag says
//! otherwise (also shown under `logicars train --help`), and every training knob with
//! each task's default (`--markdown`, kept as `docs/knobs.md`).

use anyhow::Result;
use clap::Args;
use logicars::model::config::{ModelConfig, TrainSettings};
use logicars::model::recipe::{Recipe, RecipeName};
use logicars::model::task::TaskKind;
use logicars::tasks::{preset, Knob, KNOBS};

#[derive(Debug, Args)]
pub struct PresetsArgs {
    /// Print JSON (a list of presets) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Print every training knob (the train flags and sweep --set keys) with each
    /// preset's default, as a Markdown table (docs/knobs.md).
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
}

pub fn run(args: &PresetsArgs) -> Result<()> {
    if args.json {
        println!("{}", serde_json::to_string_pretty(&json())?);
    } else if args.markdown {
        print!("{}", knobs_markdown());
    } else {
        print!("{}", table());
    }
    Ok(())
}

/// Every preset, full then small, in [`TaskKind::ALL`] order.
fn all() -> impl Iterator<Item = (TaskKind, bool, ModelConfig, TrainSettings)> {
    TaskKind::ALL.into_iter().flat_map(|task| {
        [false, true].map(|small| {
            let (config, settings) = preset(task, small);
            (task, small, config, settings)
        })
    })
}

/// The presets as an aligned text table.
pub fn table() -> String {
    let header = [
        "task", "size", "grid", "C", "steps", "fire", "K", "perceive", "update", "epochs", "batch",
        "lr", "seed", "recipe",
    ];
    let rows: Vec<[String; 14]> = all()
        .map(|(task, small, c, s)| {
            let border = if c.periodic { "wrap" } else { "zero" };
            [
                task.name().to_string(),
                if small { "small" } else { "full" }.to_string(),
                format!("{}x{} {border}", c.height, c.width),
                c.channels.to_string(),
                c.steps.to_string(),
                c.fire_rate.map_or("-".into(), |p| p.to_string()),
                c.kernels.to_string(),
                layers(&c.perception_layers),
                layers(&c.update_layers),
                s.epochs.to_string(),
                s.batch.to_string(),
                s.learning_rate.to_string(),
                s.seed.to_string(),
                recipe(&s.recipe),
            ]
        })
        .collect();
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].len())
            .max()
            .unwrap_or(0)
            .max(header[i].len())
    };
    let line = |cells: &[&str]| {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, cell)| format!("{cell:<w$}", w = width(i)))
            .collect();
        padded.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = line(&header);
    for row in &rows {
        out += &line(&row.each_ref().map(String::as_str));
    }
    out
}

/// Every knob with its flag, its meaning and each task's default: the full preset's,
/// then the small one's where it differs.
pub fn knobs_markdown() -> String {
    let tasks: Vec<&str> = TaskKind::ALL.iter().map(|t| t.name()).collect();
    let mut out = String::from(
        "# Training knobs\n\n\
         <!-- Written by `logicars presets --markdown`; a test checks that it is current. -->\n\n\
         Every setting of a preset that a run can change: `logicars train --KEY VALUE`, or \
         `logicars sweep --set KEY=V1,V2,...` for one setting per value. *Accepts* is every \
         value a run takes (the flags, `--set` and a model file's training block refuse any \
         other with the same line, before any work). Each task's column shows its preset's \
         default, then the `--small` preset's where it differs. `logicars train --help` says \
         more of each.\n\n",
    );
    out += &format!(
        "| key | flag | meaning | accepts | {} |\n",
        tasks.join(" | ")
    );
    out += &format!("|---|---|---|---|{}\n", "---|".repeat(tasks.len()));
    for knob in KNOBS {
        let defaults: Vec<String> = TaskKind::ALL
            .into_iter()
            .map(|task| default_of(knob, task))
            .collect();
        out += &format!(
            "| `{key}` | `--{key} {value}` | {meaning} | {accepts} | {} |\n",
            defaults.join(" | "),
            key = knob.key,
            value = knob.value_name,
            meaning = meaning(knob.help),
            accepts = knob.accepts(),
        );
    }
    out
}

/// A knob's default for `task`: `full` or `full / small`.
fn default_of(knob: &Knob, task: TaskKind) -> String {
    let [full, small] = [false, true].map(|small| {
        let (config, settings) = preset(task, small);
        knob.value(&config, &settings).to_string()
    });
    if full == small {
        full
    } else {
        format!("{full} / {small}")
    }
}

/// A knob's help without its `[default: ...]`, which the table's columns give.
fn meaning(help: &str) -> String {
    let Some((before, rest)) = help.split_once(" [default:") else {
        return help.to_string();
    };
    let after = rest.split_once(']').map_or("", |(_, after)| after);
    format!("{before}{after}")
}

/// A recipe's name and where its settings leave the paper's, e.g.
/// `converge: input-wise, weight decay 0.1, 8x8 first 40%`.
fn recipe(r: &Recipe) -> String {
    let paper = Recipe::named(RecipeName::Paper, TaskKind::Checkerboard, (0, 0));
    let mut changes = Vec::new();
    if r.parametrization != paper.parametrization {
        changes.push(r.parametrization.name().to_string());
    }
    if r.weight_decay != paper.weight_decay {
        changes.push(format!("weight decay {}", r.weight_decay));
    }
    if r.hard_gates != paper.hard_gates {
        changes.push(format!("hard gates {}", r.hard_gates));
    }
    if r.parity_kernels > 0 {
        let s = if r.parity_kernels == 1 { "" } else { "s" };
        changes.push(format!("{} parity kernel{s}", r.parity_kernels));
    }
    if r.has_curriculum() {
        let share = (r.curriculum_share * 100.0).round();
        let side = r.curriculum_size;
        let steps = r.curriculum_steps;
        let first = match (side > 0, steps > 0) {
            (true, true) => format!("{side}x{side} at {steps} steps"),
            (true, false) => format!("{side}x{side}"),
            _ => format!("{steps} steps"),
        };
        changes.push(format!("{first} first {share}%"));
    }
    if r.finish_size > 0 {
        let side = r.finish_size;
        changes.push(format!("{side}x{side} once the batch is right"));
    }
    if r.starts > 1 {
        changes.push(format!("{} starts", r.starts));
    }
    if r.hold_steps > 0 && r.hold_from > 0.0 {
        let share = 100.0 * r.hold_from;
        changes.push(format!("hold {} steps after {share:.0}%", r.hold_steps));
    } else if r.hold_steps > 0 {
        changes.push(format!("hold {} steps", r.hold_steps));
    }
    if r.search_circuits > 0 {
        changes.push(format!("gate search of {} circuits", r.search_circuits));
    }
    if r.rewire_layers > 0 {
        changes.push(format!("rewiring the last {} layers", r.rewire_layers));
    }
    changes.extend(attempt_changes(r));
    match (changes.is_empty(), r.name) {
        (true, RecipeName::Paper) => "paper".to_string(),
        (true, name) => format!("{} (the paper's settings)", name.name()),
        (false, name) => format!("{}: {}", name.name(), changes.join(", ")),
    }
}

/// How a recipe's attempts leave the paper's single one: their number, and when one
/// ends early.
fn attempt_changes(r: &Recipe) -> Vec<String> {
    let mut changes = Vec::new();
    if r.attempts > 1 {
        changes.push(format!("up to {} attempts", r.attempts));
    }
    if r.stall > 0 {
        changes.push(format!(
            "an attempt stops after {} epochs without a new low",
            r.stall
        ));
    }
    if r.give_up > 0 {
        let when = match r.hold_steps > 0 {
            true => "when the hold begins",
            false => "at half the run",
        };
        changes.push(format!(
            "an attempt not yet below {} bits {when} gives up",
            r.give_up
        ));
    }
    changes
}

/// Layer widths with runs folded, e.g. `256x10,128,64`.
fn layers(widths: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < widths.len() {
        let run = widths[i..].iter().take_while(|&&w| w == widths[i]).count();
        parts.push(if run > 1 {
            format!("{}x{run}", widths[i])
        } else {
            widths[i].to_string()
        });
        i += run;
    }
    parts.join(",")
}

fn json() -> serde_json::Value {
    let presets: Vec<_> = all()
        .map(|(task, small, mut config, s)| {
            // The built-in target image is data, not a hyperparameter.
            let target = config
                .pattern
                .take()
                .map(|p| format!("{}x{}", p.height, p.width));
            serde_json::json!({
                "task": task.name(),
                "small": small,
                "config": config,
                "target": target,
                "epochs": s.epochs,
                "batch": s.batch,
                "learning_rate": s.learning_rate,
                "seed": s.seed,
                "recipe": s.recipe,
            })
        })
        .collect();
    serde_json::Value::Array(presets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_equal_widths_are_folded() {
        assert_eq!(layers(&[256, 256, 256, 128, 8, 8]), "256x3,128,8x2");
        assert_eq!(layers(&[8, 4, 2]), "8,4,2");
    }

    #[test]
    fn the_knob_table_leaves_defaults_to_its_columns() {
        assert_eq!(
            meaning("Grids per batch [default: the preset's]"),
            "Grids per batch"
        );
        assert_eq!(meaning("A [default: x]; b"), "A; b");
        assert_eq!(meaning("No default"), "No default");
        let table = knobs_markdown();
        assert!(
            table.contains(
                "| `epochs` | `--epochs EPOCHS` | Epochs (optimizer steps) | a whole number from 1 \
                 | 500 / 400 |"
            ),
            "{table}"
        );
        assert_eq!(
            table.lines().filter(|l| l.starts_with("| `")).count(),
            KNOBS.len()
        );
    }
}
