//! How much memory a rollout takes, known before anything is allocated, and the limit a
//! command checks it against, so that a size too large for the machine stops with one
//! line instead of an allocation failure minutes later.

use crate::automaton::soft::ActivationMemory;
use crate::error::MemoryError;
use crate::kernels::hard::{HARD_TILE, WORDS};
use crate::kernels::plan::BackwardPlan;
use crate::kernels::soft::TILE;
use crate::model::config::{ModelConfig, TrainSettings, PATCH};

/// The environment variable that sets the limit (bytes, or with K, M, G or T).
pub const LIMIT_VAR: &str = "LOGICARS_MEMORY_LIMIT";

/// Share of the machine's memory a command may use unless told otherwise.
const MACHINE_SHARE: f64 = 0.5;

/// Assumed machine memory when it cannot be read.
const FALLBACK_MACHINE_BYTES: u64 = 8 << 30;

/// The sizes of one [`crate::train::Objective`] and how it runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RolloutSize {
    pub batch: usize,
    pub height: usize,
    pub width: usize,
    pub steps: usize,
    /// States whose loss is summed (1: the last).
    pub loss_steps: usize,
    pub memory: ActivationMemory,
    /// Whether the backward pass runs (training), or only the forward (evaluation).
    pub gradient: bool,
    /// Whether async fire masks are drawn per grid (else one draw the grids share).
    pub per_grid_masks: bool,
}

impl RolloutSize {
    /// A forward-only rollout of `batch` grids of `height x width` for `steps` steps, as
    /// evaluation and the hard-only commands run it.
    pub fn evaluation(batch: usize, (height, width): (usize, usize), steps: usize) -> Self {
        RolloutSize {
            batch,
            height,
            width,
            steps,
            loss_steps: 1,
            memory: ActivationMemory::ForwardOnly,
            gradient: false,
            per_grid_masks: false,
        }
    }

    /// The rollout a training run of `config` with `settings` makes every epoch.
    pub fn training(config: &ModelConfig, settings: &TrainSettings) -> Self {
        RolloutSize {
            batch: settings.batch,
            height: config.height,
            width: config.width,
            steps: settings.rollout_steps(config, true),
            loss_steps: settings.loss_states(true),
            memory: ActivationMemory::default(),
            gradient: true,
            per_grid_masks: settings.recipe.per_grid_masks,
        }
    }
}

/// `a * b * ...` in u64, or none when it overflows.
fn product(factors: &[usize]) -> Option<u64> {
    factors
        .iter()
        .try_fold(1u64, |acc, &f| acc.checked_mul(u64::try_from(f).ok()?))
}

/// At most how many gradient rows a tile's backward needs
/// ([`BackwardPlan::gradient_rows`](crate::kernels::plan::BackwardPlan::gradient_rows)):
/// a row's gradient lives from its first reader to its own gate, so two consecutive
/// layers' rows are live at once, the first update layer with every perception output
/// (the rows it reads), and a perception block with the other blocks' outputs. The patch
/// rows' gradients are not among them: they go to the tile's patch table.
fn gradient_rows_bound(config: &ModelConfig) -> u64 {
    let pairs = |widths: &[usize]| widths.windows(2).map(|w| w[0] + w[1]).max().unwrap_or(0);
    let perception_outputs = config.update_inputs() - config.channels;
    let first_update = config.update_layers.first().copied().unwrap_or(0);
    let live = pairs(&config.update_layers)
        .max(first_update + perception_outputs)
        .max(perception_outputs + pairs(&config.perception_layers));
    live as u64
}

/// Bytes an objective of `config` at `size` allocates with its initial and target grids,
/// within a few percent (checked against a counting allocator in `tests/integration/memory.rs`);
/// none when the sizes overflow. `config` must be valid (its sizes bounded).
pub fn objective_bytes(config: &ModelConfig, size: &RolloutSize) -> Option<u64> {
    let lanes = product(&[size.batch, size.height, size.width])?;
    let soft_lanes = lanes.div_ceil(TILE as u64) * TILE as u64;
    let c = config.channels as u64;
    let gates = config.gates_per_cell_step() as u64;
    let rows = c * PATCH as u64 + gates;
    let params = config.gate_count() as u64;
    let workers = rayon::current_num_threads().max(1) as u64;
    let steps = size.steps as u64;
    let f32s = |n: u64| n.checked_mul(4);
    let neighbour_tables = soft_lanes.checked_mul(2 * 9 * 4)?;
    let forward_only = size.memory == ActivationMemory::ForwardOnly;
    let kept_states = if forward_only { 2 } else { steps + 1 };
    let states = f32s(kept_states.checked_mul(soft_lanes)?.checked_mul(c)?)?;
    let stored = match size.memory {
        ActivationMemory::Store => f32s(steps.checked_mul(soft_lanes)?.checked_mul(rows)?)?,
        ActivationMemory::Recompute | ActivationMemory::ForwardOnly => 0,
    };
    let grad_rows = if forward_only {
        0
    } else {
        gradient_rows_bound(config)
    };
    let workspaces = f32s(workers * (rows + grad_rows) * TILE as u64)?;
    let state_grads = match forward_only {
        true => 0,
        false => f32s(soft_lanes.checked_mul(c * (PATCH as u64 + 2))?)?,
    };
    let loss_grads = f32s(soft_lanes.checked_mul(c * size.loss_steps as u64)?)?;
    let tile_grads = match size.gradient {
        true => (soft_lanes / TILE as u64).checked_mul(params * 32)?,
        false => 0,
    };
    // Per parameter its logits, optimizer state and gradients; the compiled wiring.
    let per_gate = params
        .checked_mul(128 + 16 + 32 + 64 + 8)?
        .checked_add(wiring_bytes(config)?)?;
    let hard = hard_rollout_bytes(config, lanes)?;
    let grids = f32s(lanes.checked_mul(c + config.target_channels.len() as u64)?)?;
    [
        neighbour_tables,
        states,
        stored,
        workspaces,
        state_grads,
        loss_grads,
        tile_grads,
        per_gate,
        hard,
        grids,
    ]
    .into_iter()
    .try_fold(0u64, u64::checked_add)
}

/// Bytes of a hard rollout over `lanes` cells: its neighbour tables, its shift masks (one
/// per patch position, up to four where a periodic grid wraps), two packed states (with
/// zero margins as wide as a grid when periodic), and one bit per lane and circuit row.
fn hard_rollout_bytes(config: &ModelConfig, lanes: u64) -> Option<u64> {
    let hard_lanes = lanes.div_ceil(HARD_TILE as u64) * HARD_TILE as u64;
    let c = config.channels as u64;
    let rows = c * PATCH as u64 + config.gates_per_cell_step() as u64;
    let bits_per_lane_row = (WORDS * 64 / HARD_TILE) as u64;
    let (masks, state_copies) = if config.periodic { (4, 2 * 3) } else { (1, 2) };
    let per_lane_bits = masks * PATCH as u64 + state_copies * c + rows * bits_per_lane_row;
    hard_lanes
        .checked_mul(2 * 9 * 4 * 8 + per_lane_bits)?
        .checked_div(8)
}

/// Bytes of the hard-only rollouts that `check` and `render` run at `size`: the rollout,
/// the fire masks, and three grids (the initial one, the current frame, the kept one).
pub fn hard_bytes(config: &ModelConfig, size: &RolloutSize) -> Option<u64> {
    let lanes = product(&[size.batch, size.height, size.width])?;
    let masks = mask_bytes(config, size)?;
    let grids = lanes.checked_mul(3 * 4 * config.channels as u64)?;
    hard_rollout_bytes(config, lanes)?
        .checked_add(masks)?
        .checked_add(grids)
}

/// Bytes a training run of `config` at `size` holds: its objective, the async fire
/// masks, and one start's parameters (`start_bytes`).
pub fn training_bytes(config: &ModelConfig, size: &RolloutSize) -> Option<u64> {
    evaluation_bytes(config, size)?.checked_add(start_bytes(config)?)
}

/// Bytes one start of a run holds: the model's logits and wires, AdamW's two moments,
/// the rollback copy and the best parameters.
fn start_bytes(config: &ModelConfig) -> Option<u64> {
    product(&[config.gate_count(), 64 + 8 + 128 + 64 + 64])
}

/// Bytes a training run of `config` with `settings` holds: per start, [`training_bytes`]
/// of its epochs, the objective of the recipe's curriculum or finish on its other grids
/// and its sample pool. Until the run chooses among the recipe's starts, each holds all
/// of it (they train side by side).
pub fn training_run_bytes(config: &ModelConfig, settings: &TrainSettings) -> Option<u64> {
    let run = training_bytes(config, &RolloutSize::training(config, settings))?;
    // The curriculum's grids are freed before the finish's are built: the larger counts.
    let other = [
        settings.curriculum_config(config),
        settings.finish_config(config),
    ];
    let mut small = 0;
    for other in other.iter().flatten() {
        small = small.max(evaluation_bytes(
            other,
            &RolloutSize::training(other, settings),
        )?);
    }
    let start = run
        .checked_add(small)?
        .checked_add(pool_bytes(config, settings)?)?;
    let recipe = &settings.recipe;
    let starts = match recipe.starts_can_be_chosen() {
        true => recipe.starts.max(1),
        false => 1,
    };
    start.checked_mul(starts as u64)
}

/// Bytes of the recipe's sample pool ([`crate::train::pool`]): each state's bits packed
/// into 64-bit words.
fn pool_bytes(config: &ModelConfig, settings: &TrainSettings) -> Option<u64> {
    let bits = product(&[config.height, config.width, config.channels])?;
    product(&[settings.recipe.pool, bits.div_ceil(64) as usize, 8])
}

/// Bytes of a model's compiled wiring: its circuit (three words per gate), its backward
/// plan (a step per gate, a gradient slot per row) and its forward plan (four words per
/// gate, a slot per row).
fn wiring_bytes(config: &ModelConfig) -> Option<u64> {
    let gates = config.gates_per_cell_step() as u64;
    let rows = gates.checked_add((config.channels * PATCH) as u64)?;
    gates
        .checked_mul(12 + BackwardPlan::BYTES_PER_GATE as u64 + 16)?
        .checked_add(rows.checked_mul(4 + 4)?)
}

/// Bytes an evaluation of `config` at `size` holds: its objective and fire masks.
pub fn evaluation_bytes(config: &ModelConfig, size: &RolloutSize) -> Option<u64> {
    objective_bytes(config, size)?.checked_add(mask_bytes(config, size)?)
}

/// Async fire masks: one byte per (step, cell), shared by the batch or drawn per grid.
fn mask_bytes(config: &ModelConfig, size: &RolloutSize) -> Option<u64> {
    let grids = if size.per_grid_masks { size.batch } else { 1 };
    match config.fire_rate {
        Some(_) => product(&[size.steps, size.height, size.width, grids]),
        None => Some(0),
    }
}

/// Where a command's memory limit came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitSource {
    /// [`LIMIT_VAR`].
    Environment,
    /// A share of the machine's memory (its total, in bytes).
    Machine(u64),
}

/// The most memory a command may plan to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryLimit {
    pub bytes: u64,
    pub source: LimitSource,
}

impl MemoryLimit {
    /// [`LIMIT_VAR`] when set, else half of the machine's memory.
    pub fn from_env() -> Result<Self, MemoryError> {
        match std::env::var(LIMIT_VAR) {
            Ok(text) => Ok(MemoryLimit {
                bytes: parse_bytes(&text).ok_or(MemoryError::BadLimit { text })?,
                source: LimitSource::Environment,
            }),
            Err(_) => {
                let total = machine_bytes().unwrap_or(FALLBACK_MACHINE_BYTES);
                Ok(MemoryLimit {
                    bytes: (total as f64 * MACHINE_SHARE) as u64,
                    source: LimitSource::Machine(total),
                })
            }
        }
    }

    /// Fails when `what` needs more than the limit (or so much that its size overflows).
    pub fn check(&self, what: &str, need: Option<u64>) -> Result<(), MemoryError> {
        let what = what.to_string();
        let need = need.ok_or_else(|| MemoryError::Overflow { what: what.clone() })?;
        if need <= self.bytes {
            return Ok(());
        }
        let limit = match self.source {
            LimitSource::Environment => format!("{} from {LIMIT_VAR}", human(self.bytes)),
            LimitSource::Machine(total) => {
                format!(
                    "{}, half of this machine's {}",
                    human(self.bytes),
                    human(total)
                )
            }
        };
        Err(MemoryError::TooMuch {
            what,
            need: human(need),
            limit,
        })
    }
}

/// Total memory from `/proc/meminfo` (Linux).
fn machine_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// `123`, `64K`, `512M`, `8G`, `1T` (powers of 1024; a trailing `B` or `iB` is allowed).
pub fn parse_bytes(text: &str) -> Option<u64> {
    let t = text.trim().trim_end_matches("iB").trim_end_matches('B');
    let (digits, shift) = match t.chars().last()? {
        'K' | 'k' => (&t[..t.len() - 1], 10),
        'M' | 'm' => (&t[..t.len() - 1], 20),
        'G' | 'g' => (&t[..t.len() - 1], 30),
        'T' | 't' => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// Bytes as people read them: `1.5 GB`.
pub fn human(bytes: u64) -> String {
    let units = ["bytes", "KB", "MB", "GB", "TB", "PB", "EB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < units.len() {
        value /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{bytes} bytes"),
        _ => format!("{value:.1} {}", units[unit]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_read_as_people_write_them() {
        assert_eq!(parse_bytes("1000"), Some(1000));
        assert_eq!(parse_bytes("64K"), Some(64 << 10));
        assert_eq!(parse_bytes("8G"), Some(8 << 30));
        assert_eq!(parse_bytes("2GiB"), Some(2 << 30));
        assert_eq!(parse_bytes("1t"), Some(1 << 40));
        assert_eq!(parse_bytes("lots"), None);
        assert_eq!(parse_bytes("99999999999T"), None);
        assert_eq!(human(512), "512 bytes");
        assert_eq!(human(3 << 29), "1.5 GB");
    }

    #[test]
    fn a_sample_pool_counts_its_states_bits() {
        let (config, mut settings) =
            crate::tasks::preset(crate::model::task::TaskKind::Pattern, true);
        let without = training_run_bytes(&config, &settings).unwrap();
        settings.recipe.pool = 1000;
        // The small pattern's 24x24 grid of 16 channels: 9,216 bits, 144 words a state.
        assert_eq!((config.height, config.width, config.channels), (24, 24, 16));
        let with = training_run_bytes(&config, &settings).unwrap();
        assert_eq!(with - without, 1000 * 144 * 8);
        settings.recipe.pool = 1_000_000_000_000;
        let huge = training_run_bytes(&config, &settings);
        assert_eq!(huge, Some(without + 1_152_000_000_000_000));
    }

    #[test]
    fn each_start_holds_its_own_objectives_until_the_choice() {
        let task = crate::model::task::TaskKind::CheckerboardAsync;
        let (config, mut settings) = crate::tasks::preset(task, true);
        assert!(settings.recipe.starts_can_be_chosen());
        settings.recipe.starts = 1;
        let one = training_run_bytes(&config, &settings).unwrap();
        settings.recipe.starts = 4;
        assert_eq!(training_run_bytes(&config, &settings), Some(4 * one));
        // Without a curriculum or a share to choose at, the other starts never train.
        settings.recipe.curriculum_share = 0.0;
        let alone = training_run_bytes(&config, &settings).unwrap();
        settings.recipe.starts = 1;
        assert_eq!(training_run_bytes(&config, &settings), Some(alone));
    }

    #[test]
    fn too_much_names_the_need_and_the_limit() {
        let limit = MemoryLimit {
            bytes: 1 << 30,
            source: LimitSource::Machine(2 << 30),
        };
        assert!(limit.check("x", Some(1 << 30)).is_ok());
        let err = limit
            .check("training at --batch 9", Some(3 << 30))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "training at --batch 9 needs about 3.0 GB of memory, more than the limit of \
             1.0 GB, half of this machine's 2.0 GB; make it smaller, or raise the limit \
             with LOGICARS_MEMORY_LIMIT (e.g. LOGICARS_MEMORY_LIMIT=64G)"
        );
        let err = limit.check("training", None).unwrap_err();
        assert_eq!(err.to_string(), "training: sizes this large overflow");
    }
}
