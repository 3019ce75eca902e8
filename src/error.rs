//! Errors of the library, one typed enum per kind of failure. Each message says what went
//! wrong and, where it can, what to do; none repeats the message of its cause.

use std::path::PathBuf;

/// A model configuration that cannot be built or run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    #[error("channels must be 1..={max}, got {got}")]
    Channels { got: usize, max: usize },
    #[error("the grid must not be empty, got {height}x{width}")]
    EmptyGrid { height: usize, width: usize },
    #[error("steps must be at least 1")]
    NoSteps,
    #[error("{what} must be at most {max}, got {got}")]
    TooLarge {
        what: &'static str,
        got: usize,
        max: usize,
    },
    #[error("fire rate must be in (0, 1], got {0}")]
    FireRate(f32),
    #[error("kernels must be at least 1")]
    NoKernels,
    #[error("perception needs at least one layer")]
    NoPerception,
    #[error("the first perception layer must have 8 gates (one per neighbour), got {0}")]
    FirstPerceptionWidth(usize),
    #[error("the update network needs at least one layer")]
    NoUpdate,
    #[error("every layer needs at least one gate")]
    EmptyLayer,
    #[error("the last update layer must have one gate per channel ({channels}), got {got}")]
    LastUpdateWidth { channels: usize, got: usize },
    #[error("at least one target channel is needed")]
    NoTargetChannel,
    #[error("target channel {channel} does not exist in {channels} channels")]
    TargetChannel { channel: usize, channels: usize },
    #[error("a model of a growing task (pattern, lizard, colored-g) needs its target image")]
    MissingPattern,
    #[error("a {task} model carries no target image")]
    UnexpectedPattern { task: &'static str },
    #[error("a rule model needs its rule (--rule B3/S23, B2/S/C3, wireworld...)")]
    MissingRule,
    #[error("a {task} model carries no rule (rules are the rule task's)")]
    UnexpectedRule { task: &'static str },
    #[error("a rule of {states} states keeps them in channels 0..{channels}, all of them targets")]
    RuleChannels { states: usize, channels: usize },
    #[error("a rule model learns one rule: a named one or a recording's, not both")]
    TwoRules,
    #[error("the observed rule's table must have one of '.', a state's digit or letter per neighbourhood (states^9 of them, 2 to 4 states)")]
    ObservedTable,
    #[error(
        "the grid ({height}x{width}) must have the target's size ({target_height}x{target_width})"
    )]
    PatternSize {
        height: usize,
        width: usize,
        target_height: usize,
        target_width: usize,
    },
    #[error("the target has {target} channel(s) but {set} target channels are set")]
    PatternChannels { target: usize, set: usize },
    #[error("a target must be 1..={max} pixels on each side, got {height}x{width}")]
    TargetSize {
        height: usize,
        width: usize,
        max: usize,
    },
    #[error("the target's bits do not match its size")]
    TargetBits,
    #[error("the target has no cell on: there is nothing to grow")]
    EmptyTarget,
    #[error(
        "--steps {steps} cannot draw the target: its farthest on cell is {reach} cells from \
         the seeded centre and a step reaches one cell further; use --steps {reach} or more \
         (or leave --steps out to have them chosen)"
    )]
    StepsShortOfTarget { steps: usize, reach: usize },
    #[error("{task} grows a target of {expected} channel(s), got {got}")]
    TargetChannels {
        task: &'static str,
        expected: &'static str,
        got: usize,
    },
    #[error("an RGB target needs at least 3 channels per cell, got {channels}")]
    RgbChannels { channels: usize },
    #[error("the RGB view needs 3 channels, the model has {channels}")]
    RgbView { channels: usize },
    #[error("{layer}: {cause}")]
    Layer { layer: String, cause: WiringError },
    #[error(
        "a curriculum of other grids (--curriculum-size) is for tasks defined at any \
         size (the checkerboards: smaller grids) or grown from the centre (pattern, \
         lizard: larger ones), which {task} is not (--curriculum-steps shortens the \
         rollouts instead)"
    )]
    CurriculumTask { task: &'static str },
    #[error(
        "the curriculum's grids ({side}x{side}) of a task grown from the centre must be \
         larger than the task's ({height}x{width}): the target is drawn in their centre"
    )]
    CurriculumGrowSize {
        side: usize,
        height: usize,
        width: usize,
    },
    #[error(
        "--hold-steps asks the target to hold after the task's steps, which gol's target \
         does not (it is the board one generation on)"
    )]
    HoldSteps,
    #[error(
        "--search-circuits is for the growing tasks (pattern, lizard, colored-g), whose \
         rollouts start from one fixed state; {task}'s start from random grids, which a \
         search on one draw would fit"
    )]
    GateSearchTask { task: &'static str },
    #[error(
        "--rewire-layers {layers} names the layers whose wires the gate search tries; \
         without --search-circuits there is no search to try them"
    )]
    RewireWithoutSearch { layers: usize },
    #[error("--parity-kernels {got} is more than the model's {kernels} perception kernels")]
    ParityKernels { got: usize, kernels: usize },
    #[error(
        "the curriculum's grids ({side}x{side}) must be smaller than the task's \
         ({height}x{width}) by a multiple of {period} cells, the pattern's period"
    )]
    CurriculumSize {
        side: usize,
        height: usize,
        width: usize,
        period: usize,
    },
    #[error(
        "the curriculum's rollouts ({steps} steps) must be shorter than the task's \
         ({task_steps} steps)"
    )]
    CurriculumSteps { steps: usize, task_steps: usize },
    #[error(
        "--curriculum-sync runs the curriculum synchronously; {task} is synchronous \
         already (it is for checkerboard-async)"
    )]
    CurriculumSyncTask { task: &'static str },
    #[error(
        "--curriculum-alternate alternates the curriculum's epochs with the task's; this \
         run has no curriculum (set --curriculum-size or --curriculum-steps, and \
         --curriculum-share)"
    )]
    AlternateWithoutCurriculum,
    #[error("{what} must be {expected}, got {got}")]
    OutOfRange {
        what: &'static str,
        expected: &'static str,
        got: String,
    },
    #[error(
        "{starts} starts need a time to choose among them: set --starts-share (a share of \
         the run), or a curriculum (--curriculum-size or --curriculum-steps, and \
         --curriculum-share), whose end is the time; or --starts 1"
    )]
    StartsWithoutCurriculum { starts: usize },
    #[error(
        "--pool trains from states the model grew, for the growing tasks (pattern, lizard, \
         colored-g), whose batches start from one fixed state; {task}'s start from random \
         grids"
    )]
    PoolTask { task: &'static str },
    #[error(
        "a batch of {batch} is drawn from the pool without replacement, so --pool needs at \
         least {batch} states, got {pool}"
    )]
    PoolTooSmall { pool: usize, batch: usize },
    #[error(
        "--pool-reseed {reseed} and --pool-damage {damage} name states of each batch of \
         {batch}; together they can be at most {batch}"
    )]
    PoolBatch {
        batch: usize,
        reseed: usize,
        damage: usize,
    },
    #[error(
        "--pool trains one model from the states it grew; {starts} starts would need a pool \
         each: use --starts 1"
    )]
    PoolWithStarts { starts: usize },
    #[error(
        "--pool trains from the states one kind of rollout leaves: a curriculum with it must \
         cover the whole run (--curriculum-share 1) with the task's steps, or be left out \
         (--curriculum-share 0)"
    )]
    PoolWithCurriculum,
    #[error("--pool-from {share} says when batches start coming from the pool; set --pool too")]
    PoolFromWithoutPool { share: f32 },
    #[error(
        "--finish-size trains on a larger grid drawn around the centre, for the tasks grown \
         from the centre (pattern, lizard), which {task} is not"
    )]
    FinishTask { task: &'static str },
    #[error(
        "--finish-size {side} must be larger than the task's grid ({height}x{width}): the \
         target is drawn in the centre of the larger grid"
    )]
    FinishSize {
        side: usize,
        height: usize,
        width: usize,
    },
    #[error(
        "--finish-size goes on with one model on one fixed start once its batch is right; \
         it does not go with --{knob} (add --finish-size 0)"
    )]
    FinishWith { knob: &'static str },
}

/// Wires that a layer of the given widths cannot have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WiringError {
    #[error("the first perception layer must map 9 patch positions to 8 gates, got {inputs} -> {outputs}")]
    FirstKernel { inputs: usize, outputs: usize },
    #[error("a layer needs inputs and gates, got {inputs} -> {outputs}")]
    Empty { inputs: usize, outputs: usize },
    #[error(
        "a unique layer of {outputs} gates cannot read all {inputs} inputs (needs 2*out >= in)"
    )]
    TooNarrow { inputs: usize, outputs: usize },
    #[error("a unique layer over {inputs} inputs has only {pairs} distinct pairs, fewer than {outputs} gates")]
    TooFewPairs {
        inputs: usize,
        pairs: usize,
        outputs: usize,
    },
}

/// A damage block (`RxC@A..B`) that cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DamageError {
    #[error("--damage '{text}': {reason} (expected RxC@STEP..STEP, e.g. 10x10@0..40)")]
    Syntax { text: String, reason: String },
    #[error("the damaged block must not be empty")]
    EmptyBlock,
    #[error("a {rows}x{cols} block does not fit in the {height}x{width} grid")]
    TooLarge {
        rows: usize,
        cols: usize,
        height: usize,
        width: usize,
    },
    #[error("step range {first}..{last} is empty")]
    EmptySteps { first: usize, last: usize },
}

/// A model file that cannot be read, parsed or trusted.
#[derive(Debug, thiserror::Error)]
pub enum ModelFileError {
    #[error("cannot read model file {path}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write model file {path}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("model file {file}: at {json_path}: {message}")]
    Invalid {
        file: PathBuf,
        json_path: String,
        message: String,
    },
}

/// A command that would need more memory than it may use.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MemoryError {
    #[error(
        "{what} needs about {need} of memory, more than the limit of {limit}; make it \
         smaller, or raise the limit with LOGICARS_MEMORY_LIMIT (e.g. LOGICARS_MEMORY_LIMIT=64G)"
    )]
    TooMuch {
        what: String,
        need: String,
        limit: String,
    },
    #[error("{what}: sizes this large overflow")]
    Overflow { what: String },
    #[error("LOGICARS_MEMORY_LIMIT={text}: expected bytes, e.g. 1000000, 512M or 64G")]
    BadLimit { text: String },
}

/// A checkpoint that cannot be written or resumed from.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("cannot read checkpoint {path}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write checkpoint {path}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("checkpoint {file}: at {json_path}: {message}")]
    Invalid {
        file: PathBuf,
        json_path: String,
        message: String,
    },
}

/// A grid file (initial states) that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum GridFileError {
    #[error("cannot read grid file {path}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("grid file {file}: at {json_path}: {message}")]
    Invalid {
        file: PathBuf,
        json_path: String,
        message: String,
    },
}

/// A file of training batches that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BatchFileError {
    #[error("cannot read batch file {path}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "batch file {path} has {bytes} bytes, not a whole number of batches of {per_batch} bytes \
         ({grids} grid(s) of {height}x{width}x{channels} bits)"
    )]
    Size {
        path: PathBuf,
        bytes: usize,
        per_batch: usize,
        grids: usize,
        height: usize,
        width: usize,
        channels: usize,
    },
}

/// An image that cannot become a task's target.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TargetImageError {
    #[error("{0}")]
    Decode(String),
    #[error("larger than {side}x{side} pixels, the largest {what}")]
    TooLarge { side: u32, what: &'static str },
    #[error(transparent)]
    Invalid(ConfigError),
    #[error("no pixel on ({rule})")]
    Blank { rule: &'static str },
}

/// A target image file that cannot be used for a growing task.
#[derive(Debug, thiserror::Error)]
pub enum PatternImageError {
    #[error("cannot read target image {path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error("target image {path}: {cause}")]
    Invalid { path: PathBuf, cause: ConfigError },
    #[error("target image {path} has no pixel on ({rule})")]
    Blank { path: PathBuf, rule: &'static str },
}

/// A plot that could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("drawing {what}: {message}")]
pub struct PlotError {
    pub what: &'static str,
    pub message: String,
}

/// A netlist JSON document that does not describe a valid netlist.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("netlist JSON: {0}")]
pub struct NetlistError(pub String);

/// A sweep that would start more runs than one sweep may.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "a sweep may start at most {max} runs; this one would start {runs} ({settings} \
     setting(s) x {seeds} seed(s)): split it into smaller sweeps"
)]
pub struct TooManyRuns {
    pub runs: u64,
    pub settings: u64,
    pub seeds: u64,
    pub max: usize,
}

/// A `key=value` change to a preset that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OverrideError {
    #[error("'{text}': expected key=value, e.g. lr=0.1")]
    Syntax { text: String },
    #[error("unknown key '{key}' (one of {keys})")]
    Key { key: String, keys: String },
    #[error("{key}={value}: expected {expected}")]
    Value {
        key: String,
        value: String,
        expected: String,
    },
}
