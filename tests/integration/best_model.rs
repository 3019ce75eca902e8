//! The trainer keeps the parameters whose hard circuit did best on its training batch:
//! those that epoch scored (before its step), of equal scores the latest.

use logicars::model::task::TaskKind;
use logicars::tasks::preset;
use logicars::train::{Keep, Trainer};

#[test]
fn the_best_model_is_the_one_its_epoch_scored() {
    let (config, mut settings) = preset(TaskKind::Checkerboard, true);
    settings.epochs = 120;
    let mut trainer = Trainer::from_seed(config, settings).unwrap();
    let mut scored = Vec::new();
    for epoch in 1..=120 {
        let before = trainer.model.logits.clone();
        let m = trainer.epoch(epoch).unwrap();
        scored.push((m.metrics.hard_loss, before));
    }
    let lowest = scored.iter().map(|(h, _)| *h).fold(f64::INFINITY, f64::min);
    let latest = scored.iter().rposition(|(h, _)| *h == lowest).unwrap();
    let distinct = scored.iter().filter(|(h, _)| *h != lowest).count();
    assert!(
        distinct > 0,
        "the run must score differently to test anything"
    );
    let best = trainer.best().expect("a best model after 120 epochs");
    assert_eq!((best.epoch, best.hard_loss), (latest + 1, lowest));
    assert_eq!(best.logits, scored[latest].1);
    assert_eq!(trainer.kept_model(Keep::Best).logits, scored[latest].1);
    assert_eq!(trainer.kept_model(Keep::Last).logits, trainer.model.logits);
    assert_ne!(
        trainer.kept_model(Keep::Best).logits,
        trainer.model.logits,
        "the last step moved the parameters"
    );
}
