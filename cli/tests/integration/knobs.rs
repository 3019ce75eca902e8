//! The training knobs' table in `docs/knobs.md` is the one the program prints.

use assert_cmd::Command;

#[test]
fn docs_knobs_md_is_current() {
    let out = Command::cargo_bin("logicars")
        .unwrap()
        .args(["presets", "--markdown"])
        .assert()
        .success();
    let printed = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/knobs.md");
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        printed == kept,
        "docs/knobs.md is out of date; regenerate it with\n  \
         cargo run -p logicars-cli -- presets --markdown > docs/knobs.md"
    );
}
