//! The trainer's epoch flushes subnormal floats on every thread its work can land on
//! (`kernels::subnormals`), and leaves a calling thread outside any pool as it was.

use logicars::kernels::subnormals::flushing_here;
use logicars::model::task::TaskKind;
use logicars::tasks::preset;
use logicars::train::Trainer;

fn small_checkerboard() -> Trainer {
    let (config, mut settings) = preset(TaskKind::Checkerboard, true);
    settings.epochs = 2;
    Trainer::from_seed(config, settings).unwrap()
}

#[test]
#[cfg(target_arch = "x86_64")]
fn an_epoch_in_a_pool_leaves_every_thread_of_the_pool_flushing() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    assert_eq!(pool.broadcast(|_| flushing_here()), vec![false, false]);
    let mut trainer = small_checkerboard();
    pool.install(|| trainer.epoch(1)).unwrap();
    assert_eq!(pool.broadcast(|_| flushing_here()), vec![true, true]);
}

#[test]
#[cfg(target_arch = "x86_64")]
fn an_epoch_outside_a_pool_gives_the_caller_its_mode_back() {
    std::thread::spawn(|| {
        let mut trainer = small_checkerboard();
        trainer.epoch(1).unwrap();
        assert!(!flushing_here());
        assert!(rayon::broadcast(|_| flushing_here()).into_iter().all(|f| f));
    })
    .join()
    .unwrap();
}
