//! A model as one self-contained HTML page that runs its hard circuit in the browser:
//! the pruned netlist ([`Netlist`]) bit-sliced in plain JavaScript, 32 cells a word,
//! drawn on a canvas, with controls to play, step, damage and restart it.
//!
//! The page draws its start and its asynchronous fire masks exactly as `logicars eval
//! --seed S --batch 1` does (the same ChaCha8 stream from the same seed, the same order of
//! draws), so that after N steps its grid is `eval`'s, bit for bit. Both sides print a
//! [`digest`] of that grid; the browser test compares them.

use serde_json::json;

use crate::automaton::grid::Grids;
use crate::model::config::ModelConfig;
use crate::model::gates::OPS;
use crate::model::network::Model;
use crate::model::task::TaskKind;
use crate::views::netlist::{Netlist, Signal};

const TEMPLATE: &str = include_str!("page/page.html");
const SCRIPT: &str = include_str!("page/page.js");
const STYLE: &str = include_str!("page/page.css");

/// The channels the page shows: channels 0, 1, 2 as colours when the task's target is
/// coloured (the coloured G, a `pattern --rgb`), else its first target channel in black.
pub fn visible_channels(model: &Model) -> Vec<usize> {
    let targets = &model.config.target_channels;
    match targets.len() >= 3 {
        true => targets[..3].to_vec(),
        false => targets[..1].to_vec(),
    }
}

/// The channels the page computes: those its visible channels read over any number of
/// steps (the pruned netlist's), in order. The digest covers them.
pub fn live_channels(model: &Model) -> Vec<usize> {
    Netlist::from_model(model).live_channels(&model.config.target_channels)
}

/// The CRC-32 of grid `b`'s bits in `channels`: one byte (0 or 1) per channel, row and
/// column, in that order. The page computes the same over its grid.
pub fn digest(grids: &Grids, b: usize, channels: &[usize]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    for &c in channels {
        for r in 0..grids.height {
            for col in 0..grids.width {
                hasher.update(&[u8::from(grids.get(b, r, col, c) > 0.5)]);
            }
        }
    }
    hasher.finalize()
}

/// How the page starts a grid: `eval`'s start for the model ([`tasks::eval_init`]).
fn start_kind(config: &ModelConfig) -> &'static str {
    match config.task {
        TaskKind::Pattern | TaskKind::Lizard => "seeded-centre",
        TaskKind::ColoredG => "zeros",
        _ if config.learned_rule().is_some_and(|r| r.states() > 2) => "random-states",
        _ => "random-bits",
    }
}

/// The grid the page opens on: the task's own, but a 64x64 torus for a rule (the Game of
/// Life's), whose training grids are single 3x3 boards.
fn opening_size(model: &Model) -> (usize, usize) {
    match model.config.task {
        TaskKind::Gol | TaskKind::Rule => (64, 64),
        _ => (model.config.height, model.config.width),
    }
}

/// The page's model: what the script needs and nothing else.
fn page_data(model: &Model) -> serde_json::Value {
    let config = &model.config;
    let net = Netlist::from_model(model).pruned(&config.target_channels);
    let inputs = net.inputs() as u32;
    let code = |s: Signal| match s {
        Signal::Input(i) => i,
        Signal::Gate(g) => inputs + g,
    };
    let gates: Vec<u32> = net
        .gates
        .iter()
        .flat_map(|g| [u32::from(g.op), code(g.a), code(g.b)])
        .collect();
    let outputs: Vec<[u32; 2]> = net
        .outputs
        .iter()
        .map(|&(c, s)| [c as u32, code(s)])
        .collect();
    let truth: Vec<u8> = OPS
        .iter()
        .map(|op| {
            op.truth
                .iter()
                .enumerate()
                .map(|(i, &t)| u8::from(t) << i)
                .sum()
        })
        .collect();
    json!({
        "task": task_label(config),
        "channels": config.channels,
        "height": config.height,
        "width": config.width,
        "opening": opening_size(model),
        "steps": config.steps,
        "periodic": config.periodic,
        "fireRate": config.fire_rate,
        "start": start_kind(config),
        "state_channels": config.learned_rule().map_or(0, |r| r.channels()),
        "visible": visible_channels(model),
        "live": net.live_channels(&config.target_channels),
        "truth": truth,
        "gates": gates,
        "outputs": outputs,
    })
}

/// What the page calls the model: its task, and a rule model's rule (a recording's, with
/// the named rule its circuit is when it is one).
fn task_label(config: &ModelConfig) -> String {
    match (config.rule, &config.observed) {
        (Some(rule), _) if config.task == TaskKind::Rule => format!("rule {rule}"),
        (_, Some(observed)) => match observed.matches {
            Some(rule) => format!("rule of a recording ({rule})"),
            None => "rule of a recording".into(),
        },
        _ => config.task.name().into(),
    }
}

/// The page of `model`, whole: open it from disk or serve it from anywhere.
pub fn html(model: &Model) -> String {
    let data = serde_json::to_string(&page_data(model)).expect("the page's data serializes");
    // `</` cannot end the script early inside JSON text.
    let data = data.replace("</", "<\\/");
    let title = format!(
        "logicars: {} ({}x{}, {} steps)",
        task_label(&model.config),
        model.config.height,
        model.config.width,
        model.config.steps
    );
    TEMPLATE
        .replace("{{TITLE}}", &title)
        .replace("{{STYLE}}", STYLE)
        .replace("{{MODEL}}", &data)
        .replace("{{SCRIPT}}", SCRIPT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::preset;
    use crate::train::fresh_model;

    fn model(task: TaskKind) -> Model {
        let (config, settings) = preset(task, true);
        fresh_model(config, &settings).unwrap()
    }

    #[test]
    fn the_page_holds_the_pruned_circuit_and_no_placeholder() {
        let lizard = model(TaskKind::Lizard);
        let page = html(&lizard);
        assert!(!page.contains("{{"), "every placeholder filled");
        assert!(page.starts_with("<!doctype html>"));
        let start = page.find("const MODEL = ").unwrap() + "const MODEL = ".len();
        let end = start + page[start..].find(";\n").unwrap();
        let data: serde_json::Value = serde_json::from_str(&page[start..end]).unwrap();
        let net = Netlist::from_model(&lizard).pruned(&lizard.config.target_channels);
        assert_eq!(data["gates"].as_array().unwrap().len(), 3 * net.gates.len());
        assert_eq!(data["start"], "seeded-centre");
        assert_eq!(data["visible"], json!([0]));
        assert_eq!(data["truth"][1], 8, "AND is true at (1, 1) only");
        assert_eq!(data["truth"][15], 15, "TRUE everywhere");
    }

    #[test]
    fn the_coloured_g_shows_its_three_colour_channels() {
        let g = model(TaskKind::ColoredG);
        assert_eq!(visible_channels(&g), [0, 1, 2]);
        assert_eq!(start_kind(&preset(TaskKind::ColoredG, true).0), "zeros");
        assert_eq!(visible_channels(&model(TaskKind::Checkerboard)), [0]);
    }

    #[test]
    fn the_digest_reads_one_byte_per_bit_in_channel_row_column_order() {
        let mut grids = Grids::zeros(1, 2, 2, 2);
        grids.set(0, 0, 1, 1, 1.0);
        let bytes = [0u8, 0, 0, 0, 0, 1, 0, 0];
        assert_eq!(digest(&grids, 0, &[0, 1]), crc32fast::hash(&bytes));
        assert_eq!(digest(&grids, 0, &[0]), crc32fast::hash(&[0; 4]));
    }
}
