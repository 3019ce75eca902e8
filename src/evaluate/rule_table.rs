//! What a trained rule circuit does on every neighbourhood, and the named rule it is, if
//! any: for a rule learned from a recording, the answer on the neighbourhoods the
//! recording never showed is the circuit's own guess, and it may still be a known rule.

use crate::automaton::frames::hard_last_frame;
use crate::model::ca_rule::CaRule;
use crate::model::network::Model;
use crate::tasks;

/// The next state the hard circuit gives the centre of every neighbourhood (by number),
/// for a rule model; `None` for other tasks.
pub fn circuit_table(model: &Model) -> Option<Vec<u8>> {
    let config = &model.config;
    let rule = config
        .learned_rule()
        .filter(|_| config.height * config.width == 9)?;
    let codes = rule.states().pow(9);
    let boards = tasks::rule_boards(config, 0..codes);
    let last = hard_last_frame(model, &boards, 1, None, None, |_| {});
    let centre = 4;
    let table = (0..codes)
        .map(|b| {
            let on = (0..rule.channels()).map(|c| last.get(b, centre / 3, centre % 3, c) >= 0.5);
            CaRule::state_of(on)
        })
        .collect();
    Some(table)
}

/// The named rule the model's circuit is on every neighbourhood, if one is.
pub fn matched_rule(model: &Model) -> Option<CaRule> {
    let states = model.config.learned_rule()?.states();
    CaRule::matching(&circuit_table(model)?, states)
}

/// An exact model of a recording's rule with the named rule its circuit is written into
/// it (`config.observed.matches`), when there is one; `None` for any other model.
pub fn named_rule(model: &Model) -> Option<Model> {
    model.config.observed.as_ref()?;
    let rule = matched_rule(model)?;
    let mut named = model.clone();
    if let Some(observed) = &mut named.config.observed {
        observed.matches = Some(rule);
    }
    Some(named)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::task::TaskKind;
    use crate::tasks::preset;
    use crate::train::fresh_model;

    #[test]
    fn a_fresh_circuit_is_read_on_every_neighbourhood() {
        let (config, settings) = preset(TaskKind::Rule, true);
        let model = fresh_model(config, &settings).unwrap();
        let table = circuit_table(&model).unwrap();
        assert_eq!(table.len(), 512);
        // Whatever the circuit is, the table read back is its rule when one matches.
        if let Some(rule) = matched_rule(&model) {
            assert!((0..512).all(|c| rule.next_of_code(c) == table[c]));
        }
    }

    /// A kernel started as a parity detector, read through one pass-through gate, is
    /// Replicator (B1357/S1357: on where an odd number of neighbours is on) on all 512
    /// neighbourhoods, whatever the centre.
    #[test]
    fn a_parity_kernel_is_replicator() {
        use crate::model::gates::{PASS_A, PASS_B};
        use crate::model::parametrization::Parametrization;
        use rand::SeedableRng;
        use rand_chacha::ChaCha8Rng;
        let (mut config, _) = preset(TaskKind::Rule, true);
        config.kernels = 1;
        config.update_layers = vec![1];
        config.parametrization = Parametrization::Softmax;
        let mut model = Model::new(config, &mut ChaCha8Rng::seed_from_u64(3))
            .expect("a one-gate update fits its two inputs");
        model.set_pass_through(10.0);
        model.start_parity_kernels(1, 10.0);
        // The update's inputs are the cell (0) and the kernel's output (1).
        let wires = &model.update[0].wires;
        let reads_kernel = if wires.a[0] == 1 { PASS_A } else { PASS_B };
        let gate = model.update_gate(0, 0);
        model.logits[gate] = Parametrization::Softmax.starting_as(reads_kernel, 10.0);
        let table = circuit_table(&model).unwrap();
        let replicator: CaRule = "replicator".parse().unwrap();
        let wrong = (0..512).filter(|&c| replicator.next_of_code(c) != table[c]);
        assert_eq!(wrong.count(), 0);
    }
}
