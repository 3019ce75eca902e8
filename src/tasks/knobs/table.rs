//! The table of every training knob: its key and flag, its help, the field it sets and
//! the values it takes. The one place a knob is defined ([`super`] reads it for the flags,
//! the `--set` keys, `docs/knobs.md` and validation).

use super::{Knob, Range, Target};

/// Every training knob, in the order the `train` flags apply (a recipe before its fields,
/// the parametrization before the pass-through it resets).
pub static KNOBS: &[Knob] = &[
    Knob {
        key: "epochs",
        value_name: "EPOCHS",
        help: "Epochs (optimizer steps) [default: the preset's]",
        target: Target::Count(|_, s| &mut s.epochs),
        range: Range::AtLeastOne,
    },
    Knob {
        key: "batch",
        value_name: "BATCH",
        help: "Grids per batch [default: the preset's]",
        target: Target::Count(|_, s| &mut s.batch),
        range: Range::AtLeastOne,
    },
    Knob {
        key: "lr",
        value_name: "LR",
        help: "Learning rate [default: the preset's]",
        target: Target::Number(|_, s| &mut s.learning_rate),
        range: Range::AboveZero,
    },
    Knob {
        key: "steps",
        value_name: "STEPS",
        help: "Steps per rollout [default: the preset's]",
        target: Target::Count(|c, _| &mut c.steps),
        range: Range::AtLeastOne,
    },
    Knob {
        key: "periodic",
        value_name: "PERIODIC",
        help: "Wrap around at the border, true or false [default: the preset's]",
        target: Target::Switch(|c, _| &mut c.periodic),
        range: Range::Any,
    },
    Knob {
        key: "recipe",
        value_name: "RECIPE",
        help: "The training recipe [default: converge]; the flags below change single fields \
               of it",
        target: Target::Recipe,
        range: Range::Any,
    },
    Knob {
        key: "parametrization",
        value_name: "PARAMETRIZATION",
        help: "How gates are parametrized: softmax (16 op logits) or input-wise (4 corner \
               logits) [default: the recipe's]",
        target: Target::Parametrization,
        range: Range::Any,
    },
    Knob {
        key: "pass-through",
        value_name: "PASS_THROUGH",
        help: "Pass-through strength of fresh gates [default: the parametrization's: 10 for \
               softmax, 3 for input-wise]",
        target: Target::Number(|_, s| &mut s.recipe.pass_through),
        range: Range::AtLeastZero,
    },
    Knob {
        key: "weight-decay",
        value_name: "WEIGHT_DECAY",
        help: "AdamW's decoupled weight decay [default: the recipe's, 0.01]",
        target: Target::Number(|_, s| &mut s.recipe.weight_decay),
        range: Range::AtLeastZero,
    },
    Knob {
        key: "epsilon",
        value_name: "EPSILON",
        help: "AdamW's epsilon [default: the recipe's, 1e-8]",
        target: Target::Number(|_, s| &mut s.recipe.epsilon),
        range: Range::AboveZero,
    },
    Knob {
        key: "warmup",
        value_name: "WARMUP",
        help: "Epochs of linear learning-rate warm-up [default: the recipe's, 0]",
        target: Target::Count(|_, s| &mut s.recipe.warmup),
        range: Range::Any,
    },
    Knob {
        key: "cosine",
        value_name: "COSINE",
        help: "Decay the learning rate to a tenth along a half cosine, true or false \
               [default: the recipe's, false]",
        target: Target::Switch(|_, s| &mut s.recipe.cosine),
        range: Range::Any,
    },
    Knob {
        key: "discreteness",
        value_name: "DISCRETENESS",
        help: "Weight of the penalty on gates that are not yet one op, which closes the gap \
               between soft and hard loss [default: the recipe's]",
        target: Target::Number(|_, s| &mut s.recipe.discreteness),
        range: Range::AtLeastZero,
    },
    Knob {
        key: "straight-through",
        value_name: "SHARE",
        help: "Share of the run, at its end, that runs the hard circuit forward and takes \
               gradients through the soft gates (straight-through), 0 to 1 [default: the \
               recipe's]",
        target: Target::Number(|_, s| &mut s.recipe.straight_through),
        range: Range::ShareOfRun,
    },
    Knob {
        key: "hardening",
        value_name: "SHARE",
        help: "Share of the run, before the straight-through share, over which the forward \
               moves linearly from the soft gates to the hard ops, 0 to 1 [default: the \
               recipe's, 0]",
        target: Target::Number(|_, s| &mut s.recipe.hardening),
        range: Range::ShareOfRun,
    },
    Knob {
        key: "loss-steps",
        value_name: "K",
        help: "Sum the soft loss over the states after the last K steps, not only the last \
               [default: the recipe's, 1]",
        target: Target::Count(|_, s| &mut s.recipe.loss_steps),
        range: Range::AtLeastOne,
    },
    Knob {
        key: "gate-noise",
        value_name: "SCALE",
        help: "Scale of the noise added to every gate's parameters each epoch (Gumbel for \
               softmax gates, logistic for input-wise ones); with --straight-through 1 each \
               epoch trains one sampled circuit [default: the recipe's, 0]",
        target: Target::Number(|_, s| &mut s.recipe.gate_noise),
        range: Range::AtLeastZero,
    },
    Knob {
        key: "sharpen",
        value_name: "FACTOR",
        help: "Multiply the gates' parameters in the soft rollout by a factor rising from 1 \
               to FACTOR over the run (a temperature falling to 1/FACTOR), so the soft gates \
               approach the hard ops [default: the recipe's, 1]",
        target: Target::Number(|_, s| &mut s.recipe.sharpen),
        range: Range::AboveZero,
    },
    Knob {
        key: "hard-gates",
        value_name: "SHARE",
        help: "Share of the gates, drawn afresh each epoch, that run their hard op in the \
               soft rollout (straight-through) while the rest stay soft [default: the \
               recipe's, 0]",
        target: Target::Number(|_, s| &mut s.recipe.hard_gates),
        range: Range::ShareOfGates,
    },
    Knob {
        key: "hold-steps",
        value_name: "K",
        help: "Run the rollout K steps past the task's and sum the soft loss over every \
               state from the task's step on, so the target must hold; the hard loss counts \
               the wrong bits at the task's step and at the end (not gol) [default: the \
               recipe's, 0]",
        target: Target::Count(|_, s| &mut s.recipe.hold_steps),
        range: Range::Any,
    },
    Knob {
        key: "hold-from",
        value_name: "SHARE",
        help: "Share of the run after which the --hold-steps apply, 0 to 1; before it the \
               rollout stops at the task's step [default: the recipe's, 0]",
        target: Target::Number(|_, s| &mut s.recipe.hold_from),
        range: Range::ShareOfRun,
    },
    Knob {
        key: "stillness",
        value_name: "WEIGHT",
        help: "Add to the soft loss WEIGHT times the squared change of the channels the \
               target does not name between consecutive states it sums (the hold steps), \
               so that a held pattern is a state that stays [default: the recipe's, 0]",
        target: Target::Number(|_, s| &mut s.recipe.stillness),
        range: Range::AtLeastZero,
    },
    Knob {
        key: "on-weight",
        value_name: "WEIGHT",
        help: "Count the squared error of every bit the target wants on WEIGHT times in \
               the soft loss, so that leaving every cell off pays less on a drawing that \
               is mostly empty [default: the recipe's, 1]",
        target: Target::Number(|_, s| &mut s.recipe.on_weight),
        range: Range::AboveZero,
    },
    Knob {
        key: "per-grid-masks",
        value_name: "PER_GRID",
        help: "Draw the asynchronous fire masks per grid of the batch, true or false, \
               rather than one draw every grid shares [default: the recipe's, false]",
        target: Target::Switch(|_, s| &mut s.recipe.per_grid_masks),
        range: Range::Any,
    },
    Knob {
        key: "unit-states",
        value_name: "UNIT",
        help: "Clamp every soft state to [0, 1], true or false, passing the gradient through \
               unchanged, so that f32 rounding cannot grow over a rollout longer than the \
               circuit was trained on [default: the recipe's, false]",
        target: Target::Switch(|_, s| &mut s.recipe.unit_states),
        range: Range::Any,
    },
    Knob {
        key: "curriculum-size",
        value_name: "SIDE",
        help: "Train the first --curriculum-share of the run on square grids of this side, \
               then at the task's size; 0 for none (checkerboard tasks: smaller grids; \
               pattern and lizard: larger ones, the target in their centre, so the rule \
               learns to grow it on an open plane as well as on the task's wrapping grid) \
               [default: the recipe's]",
        target: Target::Count(|_, s| &mut s.recipe.curriculum_size),
        range: Range::Any,
    },
    Knob {
        key: "curriculum-steps",
        value_name: "STEPS",
        help: "Train the first --curriculum-share of the run on rollouts of this many steps, \
               fewer than the task's, then on the task's; 0 for the task's [default: the \
               recipe's, 0]",
        target: Target::Count(|_, s| &mut s.recipe.curriculum_steps),
        range: Range::Any,
    },
    Knob {
        key: "curriculum-share",
        value_name: "SHARE",
        help: "Share of the run, at its start, on the curriculum's smaller grids or shorter \
               rollouts, 0 to 1 [default: the recipe's]",
        target: Target::Number(|_, s| &mut s.recipe.curriculum_share),
        range: Range::ShareOfRun,
    },
    Knob {
        key: "curriculum-sync",
        value_name: "SYNC",
        help: "Run the curriculum's rollouts synchronously, every cell updating each step, \
               true or false; asynchronous tasks only [default: the recipe's, false]",
        target: Target::Switch(|_, s| &mut s.recipe.curriculum_sync),
        range: Range::Any,
    },
    Knob {
        key: "curriculum-alternate",
        value_name: "ALTERNATE",
        help: "During the curriculum, train every other epoch on the task's own grids \
               (odd epochs the curriculum's, even ones the task's), so that a rule learns \
               both with one optimizer; true or false [default: the recipe's, false]",
        target: Target::Switch(|_, s| &mut s.recipe.curriculum_alternate),
        range: Range::Any,
    },
    Knob {
        key: "finish-size",
        value_name: "SIDE",
        help: "Once an attempt's batch is right, train the rest of it on square grids of \
               this side, larger than the task's, the target in their centre (pattern, \
               lizard): there the rule cannot lean on the task's grid wrapping, as the \
               larger grids of the exact check cannot; the kept model is still chosen on \
               the task's grid; 0 for none [default: the recipe's, 0]",
        target: Target::Count(|_, s| &mut s.recipe.finish_size),
        range: Range::Any,
    },
    Knob {
        key: "starts",
        value_name: "N",
        help: "Train this many models, each wired and initialised from its own seed, side by \
               side until --starts-share of the run (or the curriculum's end) and go on with \
               the one that leads then (or the first whose hard circuit is perfect) \
               [default: the recipe's]",
        target: Target::Count(|_, s| &mut s.recipe.starts),
        range: Range::AtLeastOne,
    },
    Knob {
        key: "starts-share",
        value_name: "SHARE",
        help: "Share of the run after which the run chooses among its --starts, 0 to 1; 0: \
               at the curriculum's end [default: the recipe's, 0]",
        target: Target::Number(|_, s| &mut s.recipe.starts_share),
        range: Range::ShareOfRun,
    },
    Knob {
        key: "parity-kernels",
        value_name: "KERNELS",
        help: "Perception kernels (the first ones) whose gates start as XOR rather than \
               pass-through, so that each starts out computing the parity of the \
               neighbours, which no gradient finds from pass-through gates [default: the \
               recipe's: 1 for rule, 0 for the rest]",
        target: Target::Count(|_, s| &mut s.recipe.parity_kernels),
        range: Range::Any,
    },
    Knob {
        key: "search-circuits",
        value_name: "CIRCUITS",
        help: "After the last epoch, if the kept model is not exact, search for single gate \
               changes that get fewer target bits wrong at the task's step and at twice it, \
               trying at most CIRCUITS candidates, those the gradient ranks best first; \
               growing tasks only (their rollouts start from one fixed state) [default: \
               the recipe's, 0]",
        target: Target::Count(|_, s| &mut s.recipe.search_circuits),
        range: Range::Any,
    },
    Knob {
        key: "rewire-layers",
        value_name: "LAYERS",
        help: "In the last LAYERS update layers, the gate search also tries moving an input \
               of a gate to another output of the layer before, ranked with the ops by the \
               change their gradient predicts; needs --search-circuits [default: the \
               recipe's, 0]",
        target: Target::Count(|_, s| &mut s.recipe.rewire_layers),
        range: Range::Any,
    },
    Knob {
        key: "attempts",
        value_name: "N",
        help: "Attempts the run may make: when an attempt's kept model is not exact at its \
               end, train again from a new seed derived from (seed, attempt), and keep the \
               best model of all (exact first); 1: one attempt [default: the recipe's]",
        target: Target::Count(|_, s| &mut s.recipe.attempts),
        range: Range::AtLeastOne,
    },
    Knob {
        key: "attempt",
        value_name: "K",
        help: "The attempt to start at: with --attempts 1, trains attempt K of the seed \
               alone, as the run that reached it trained it [default: 1]",
        target: Target::Count(|_, s| &mut s.attempt),
        range: Range::AtLeastOne,
    },
    Knob {
        key: "stall",
        value_name: "EPOCHS",
        help: "Stop an attempt that is not the run's last once its hard loss has not reached \
               a new low for EPOCHS epochs (counted after the curriculum, or within a hold \
               that begins inside the run), and go on to the next; 0: never [default: the \
               recipe's]",
        target: Target::Count(|_, s| &mut s.recipe.stall),
        range: Range::Any,
    },
    Knob {
        key: "give-up",
        value_name: "BITS",
        help: "End an attempt that is not the run's last when a hold that begins inside the \
               run begins (else half the run) unless its hard loss has been below BITS \
               target bits, and go on to the next: one still far from its target then \
               seldom ends exact; 0: never [default: the recipe's]",
        target: Target::Count(|_, s| &mut s.recipe.give_up),
        range: Range::Any,
    },
    Knob {
        key: "pool",
        value_name: "STATES",
        help: "Train from a sample pool of this many states (growing tasks): each batch is \
               drawn from states the model produced earlier and written back after its \
               rollout, so the rule learns to keep its pattern; 0: every batch from the seed \
               [default: 0]",
        target: Target::Count(|_, s| &mut s.recipe.pool),
        range: Range::Any,
    },
    Knob {
        key: "pool-reseed",
        value_name: "STATES",
        help: "Of each batch drawn from the pool, the states farthest from the target that \
               the seed replaces [default: 1]",
        target: Target::Count(|_, s| &mut s.recipe.pool_reseed),
        range: Range::Any,
    },
    Knob {
        key: "pool-damage",
        value_name: "STATES",
        help: "Of each batch drawn from the pool, the states nearest the target that get a \
               block of half the grid's side zeroed at a random place, so the rule learns \
               to regrow [default: 0]",
        target: Target::Count(|_, s| &mut s.recipe.pool_damage),
        range: Range::Any,
    },
    Knob {
        key: "pool-from",
        value_name: "SHARE",
        help: "Share of the run after which batches come from the --pool, 0 to 1; before \
               it every batch starts from the seed, so the pattern is learned to grow \
               first [default: 0]",
        target: Target::Number(|_, s| &mut s.recipe.pool_from),
        range: Range::ShareOfRun,
    },
    Knob {
        key: "rule",
        value_name: "RULE",
        help: "rule: the rule to learn, B3/S23 (Life-like), B2/S/C3 or 345/2/4 \
               (Generations, at most 4 states), wireworld, or a name such as highlife or \
               brians-brain [default: B3/S23]",
        target: Target::Rule,
        range: Range::Any,
    },
];
