//! `export --format html` in a real browser (Debian's headless Chromium): for every
//! preset, the page's grid after N steps is `logicars eval`'s, bit for bit (both print
//! the same digest), synchronous and asynchronous tasks alike; a screenshot of each
//! gallery page (exact models) is kept under `target/page-screenshots/` to look at. Without Chromium the test says
//! so and passes, except in CI (`CI` set), where it must run.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const BROWSER: &str = "chromium";

fn logicars() -> Command {
    Command::cargo_bin("logicars").unwrap()
}

/// Whether the browser runs here; in CI it must.
fn browser_here() -> bool {
    let found = Process::new(BROWSER)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install Debian's `chromium` for the browser test"
        );
        eprintln!("note: no `{BROWSER}` here; the page's browser test is skipped");
    }
    found
}

fn browser(args: &[&str]) -> String {
    let out = Process::new(BROWSER)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{BROWSER} {args:?} failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The text of the page's `<output id="ID">` once its script has run.
fn output_of(dom: &str, id: &str) -> String {
    let open = format!("id=\"{id}\"");
    let at = dom
        .find(&open)
        .unwrap_or_else(|| panic!("no #{id} in the page"));
    let text = &dom[at..];
    let start = text.find('>').unwrap() + 1;
    let end = text.find("</output>").unwrap();
    text[start..end].to_string()
}

fn url(page: &Path, query: &str) -> String {
    format!("file://{}?{query}", page.display())
}

/// A small model of `task` whose every gate runs a random op: a busy, chaotic rule that
/// tests every op and wire (a trained one prunes to a few).
fn random_model(task: &str, dir: &Path) -> PathBuf {
    let model = dir.join(task).join("model.json");
    logicars()
        .args(["train", task, "--small", "--epochs", "1", "--attempts", "1"])
        .args(task_flags(task))
        .args(["--no-artefacts", "--threads", "1", "--save"])
        .arg(&model)
        .assert()
        .success();
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(task.len() as u64);
    for part in ["perceive", "update"] {
        for layer in json[part].as_array_mut().unwrap() {
            randomise(&mut layer["logits"], &mut rng);
        }
    }
    let random = dir.join(format!("{task}.json"));
    std::fs::write(&random, json.to_string()).unwrap();
    random
}

/// The rule task's page is tried on a rule of 4 states, whose random start keeps each
/// cell's first channel on (a valid state), as `eval` starts it.
fn task_flags(task: &str) -> &'static [&'static str] {
    match task {
        "rule" => &["--rule", "wireworld"],
        _ => &[],
    }
}

fn randomise(value: &mut serde_json::Value, rng: &mut ChaCha8Rng) {
    match value {
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| randomise(v, rng)),
        other => *other = serde_json::json!(rng.random_range(-6.0f32..6.0)),
    }
}

/// `export --format html` of `model` to `page`.
fn export_page(model: &Path, page: &Path) -> PathBuf {
    logicars()
        .args(["export", "--format", "html", "--model"])
        .arg(model)
        .arg("--out")
        .arg(page)
        .assert()
        .success();
    page.to_path_buf()
}

fn eval_digest(model: &Path, seed: u64, size: &str, steps: usize) -> String {
    let out = logicars()
        .args(["eval", "--model"])
        .arg(model)
        .args(["--batch", "1", "--digest", "--threads", "1", "--seed"])
        .args([seed.to_string(), "--size".into(), size.into()])
        .args(["--steps", &steps.to_string()])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let line = stdout.lines().find(|l| l.starts_with("digest: ")).unwrap();
    line["digest: ".len()..].to_string()
}

fn screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/page-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn every_presets_page_runs_the_bits_eval_runs() {
    if !browser_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tasks = [
        ("checkerboard", "16x16"),
        ("checkerboard-async", "14x14"),
        ("gol", "24x20"),
        ("rule", "24x20"),
        ("pattern", "20x20"),
        ("lizard", "30x30"),
        ("colored-g", "16x16"),
    ];
    for (task, size) in tasks {
        let model = random_model(task, dir.path());
        let page = export_page(&model, &dir.path().join(format!("{task}.html")));
        for (seed, steps) in [(0, 1), (12, 40)] {
            let dom = browser(&[
                "--dump-dom",
                &url(&page, &format!("seed={seed}&steps={steps}&size={size}")),
            ]);
            let expected = eval_digest(&model, seed, size, steps);
            assert_eq!(
                output_of(&dom, "digest"),
                expected,
                "{task}: seed {seed}, {steps} steps on {size}"
            );
        }
    }
}

#[test]
fn an_absurd_grid_size_is_clamped_with_a_message() {
    if !browser_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let model = random_model("checkerboard", dir.path());
    let page = export_page(&model, &dir.path().join("page.html"));
    let dom = browser(&["--dump-dom", &url(&page, "seed=2&steps=3&size=100000x7")]);
    assert_eq!(
        output_of(&dom, "message"),
        "height 100000 is outside 3 to 256; using 256"
    );
    assert_eq!(
        output_of(&dom, "digest"),
        eval_digest(&model, 2, "256x7", 3)
    );
}

#[test]
fn a_file_that_is_not_a_model_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("notes.json");
    std::fs::write(&bad, "{\"hello\": 1}").unwrap();
    let out = logicars()
        .args(["export", "--format", "html", "--model"])
        .arg(&bad)
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("Error: model file "), "{stderr}");
}

/// The gallery's pages (exact models, `scripts/gallery.sh`) run in the browser: each
/// writes its digest after its model's steps, and its screenshot is kept to look at.
#[test]
fn the_gallerys_pages_run_and_are_pictured() {
    if !browser_here() {
        return;
    }
    let gallery = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/gallery");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&gallery)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    pages.sort();
    assert!(pages.len() >= 5, "a page per gallery model: {pages:?}");
    for page in pages {
        let page = page.canonicalize().unwrap();
        let name = page.file_stem().unwrap().to_string_lossy().into_owned();
        // The model's own steps: what it was trained to draw.
        let html = std::fs::read_to_string(&page).unwrap();
        let data = &html[html.find("const MODEL = ").unwrap() + 14..];
        let data: serde_json::Value =
            serde_json::from_str(&data[..data.find(";\n").unwrap()]).unwrap();
        let query = format!("seed=0&steps={}", data["steps"]);
        let dom = browser(&["--dump-dom", &url(&page, &query)]);
        let digest = output_of(&dom, "digest");
        assert!(
            digest.len() == 8 && digest.chars().all(|c| c.is_ascii_hexdigit()),
            "{name}: {digest:?}"
        );
        let shot = screenshots().join(format!("gallery-{name}.png"));
        let shot_arg = format!("--screenshot={}", shot.display());
        browser(&[&shot_arg, "--window-size=600,760", &url(&page, &query)]);
        let picture = image::open(&shot).unwrap().to_rgb8();
        let first = *picture.get_pixel(0, 0);
        assert!(
            picture.pixels().any(|p| *p != first),
            "{name}: the screenshot is one colour"
        );
    }
}
