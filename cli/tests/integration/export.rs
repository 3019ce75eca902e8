//! Exported circuits compute what the model computes: the JSON netlist (read back and
//! evaluated) and the Verilog module (simulated with iverilog) against the model's own
//! bit-sliced hard step on random neighbourhoods.

use std::process::Command;

use assert_cmd::Command as Cli;
use logicars::model::network::Model;
use logicars::model::task::TaskKind;
use logicars::tasks::preset;
use logicars::views::netlist::{model_hard_step, Netlist};
use logicars::views::netlist_export::from_json;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A small model with random hard ops (a third pass-through), saved to `dir`.
fn saved_model(dir: &std::path::Path) -> (Model, std::path::PathBuf) {
    let (config, _) = preset(TaskKind::Checkerboard, true);
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let mut model = Model::new(config, &mut rng).unwrap();
    for logits in &mut model.logits {
        *logits = [0.0; 16];
        let op = if rng.random_bool(0.33) {
            3
        } else {
            rng.random_range(0..16)
        };
        logits[op] = 2.0;
    }
    let path = dir.join("m.json");
    logicars::io::model_file::save(&model, &path).unwrap();
    (model, path)
}

fn export(model: &std::path::Path, format: &str, out: &std::path::Path) {
    Cli::cargo_bin("logicars")
        .unwrap()
        .args(["export", "--format", format, "--model"])
        .arg(model)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
}

fn random_patches(inputs: usize, n: usize) -> Vec<Vec<bool>> {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    (0..n)
        .map(|_| (0..inputs).map(|_| rng.random()).collect())
        .collect()
}

#[test]
fn json_netlist_matches_the_models_hard_step() {
    let dir = tempfile::tempdir().unwrap();
    let (model, path) = saved_model(dir.path());
    let out = dir.path().join("cell.json");
    export(&path, "json", &out);
    let net = from_json(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert!(net.gates.len() < Netlist::from_model(&model).gates.len());
    let patches = random_patches(net.inputs(), 500);
    let want = model_hard_step(&model, &patches);
    for (patch, want) in patches.iter().zip(&want) {
        for (c, got) in net.eval(patch) {
            assert_eq!(got, want[c], "channel {c}");
        }
    }
}

#[test]
fn verilog_module_matches_the_models_hard_step() {
    if Command::new("iverilog").arg("-V").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs iverilog; it is missing"
        );
        eprintln!("iverilog is not installed: the Verilog export is checked in CI only");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (model, path) = saved_model(dir.path());
    let module = dir.path().join("cell.v");
    export(&path, "verilog", &module);
    let json = dir.path().join("cell.json");
    export(&path, "json", &json);
    let net = from_json(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let (inputs, channels) = (net.inputs(), net.channels);

    let patches = random_patches(inputs, 200);
    let mut bench = format!(
        "module bench;\n  reg [{}:0] patch;\n  wire [{}:0] next;\n",
        inputs - 1,
        channels - 1
    );
    bench.push_str("  logicars_cell dut(.patch(patch), .next(next));\n  initial begin\n");
    for p in &patches {
        // Verilog literals are written most significant bit first.
        let bits: String = p.iter().rev().map(|&b| if b { '1' } else { '0' }).collect();
        bench.push_str(&format!(
            "    patch = {inputs}'b{bits}; #1 $display(\"%b\", next);\n"
        ));
    }
    bench.push_str("  end\nendmodule\n");
    let bench_path = dir.path().join("bench.v");
    std::fs::write(&bench_path, bench).unwrap();
    let sim = dir.path().join("sim");
    let status = Command::new("iverilog")
        .arg("-o")
        .arg(&sim)
        .arg(&module)
        .arg(&bench_path)
        .status()
        .unwrap();
    assert!(status.success(), "iverilog compiles the export");
    let out = Command::new("vvp").arg(&sim).output().unwrap();
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), patches.len());
    let want = model_hard_step(&model, &patches);
    let live: Vec<usize> = net.outputs.iter().map(|o| o.0).collect();
    for (line, want) in lines.iter().zip(&want) {
        let got: Vec<bool> = line.chars().rev().map(|ch| ch == '1').collect();
        for &c in &live {
            assert_eq!(got[c], want[c], "channel {c} of {line}");
        }
    }
}

/// On a trained model (where constant gates and ignored inputs are common), the pruned
/// netlist still computes the hard step of every channel the target depends on.
#[test]
fn pruned_netlist_of_a_trained_model_matches_its_hard_step() {
    use logicars::train::{run, Trainer};
    use std::ops::ControlFlow;
    let (config, settings) = preset(TaskKind::Checkerboard, true);
    // Trained until its hard circuit is first perfect.
    let trainer = Trainer::from_seed(config, settings).unwrap();
    let (trainer, summary, _) = run(trainer, |_, m| match m.metrics.hard_loss {
        0.0 => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    });
    assert!(
        summary.first_perfect_epoch.is_some(),
        "the small preset converges"
    );
    let model = trainer.model;
    let full = Netlist::from_model(&model);
    let pruned = full.pruned(&model.config.target_channels);
    assert!(
        pruned.gates.len() * 10 < full.gates.len(),
        "{} of {}",
        pruned.gates.len(),
        full.gates.len()
    );
    let patches = random_patches(full.inputs(), 2000);
    let want = model_hard_step(&model, &patches);
    for (patch, want) in patches.iter().zip(&want) {
        for (c, got) in pruned.eval(patch) {
            assert_eq!(got, want[c], "channel {c}");
        }
    }
}
