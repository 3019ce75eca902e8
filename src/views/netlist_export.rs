//! A netlist as Graphviz DOT, synthesizable Verilog, or JSON (which also reads back).

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::error::NetlistError;
use crate::model::config::PATCH;
use crate::model::gates::OPS;
use crate::views::netlist::{NetGate, Netlist, Signal};

fn name(s: Signal) -> String {
    match s {
        Signal::Input(i) => format!("x_c{}_p{}", i as usize / PATCH, i as usize % PATCH),
        Signal::Gate(g) => format!("g{g}"),
    }
}

/// Graphviz: inputs at the top, gates labelled with their op, outputs at the bottom.
/// Only the inputs an op depends on are drawn (TRUE has none, NOT B only `b`).
pub fn dot(net: &Netlist) -> String {
    let mut out =
        String::from("digraph logicars_cell {\n  rankdir=TB;\n  node [fontname=\"Helvetica\"];\n");
    let mut used_inputs: Vec<u32> = net
        .gates
        .iter()
        .flat_map(NetGate::read_inputs)
        .chain(net.outputs.iter().map(|o| o.1))
        .filter_map(|s| match s {
            Signal::Input(i) => Some(i),
            Signal::Gate(_) => None,
        })
        .collect();
    used_inputs.sort_unstable();
    used_inputs.dedup();
    for i in used_inputs {
        let _ = writeln!(
            out,
            "  {} [shape=box, style=filled, fillcolor=\"#d6eaf8\"];",
            name(Signal::Input(i))
        );
    }
    for (i, g) in net.gates.iter().enumerate() {
        let _ = writeln!(out, "  g{i} [label=\"{}\"];", OPS[g.op as usize].name);
        let op = &OPS[g.op as usize];
        for (reads, s, port) in [(op.depends_on_a(), g.a, "a"), (op.depends_on_b(), g.b, "b")] {
            if reads {
                let _ = writeln!(out, "  {} -> g{i} [label=\"{port}\"];", name(s));
            }
        }
    }
    for &(c, s) in &net.outputs {
        let _ = writeln!(
            out,
            "  out_c{c} [shape=box, style=filled, fillcolor=\"#f9e79f\"];\n  {} -> out_c{c};",
            name(s)
        );
    }
    out.push_str("}\n");
    out
}

/// The op as a Boolean expression of `a` and `b`, from its truth table.
fn verilog_expr(op: usize, a: &str, b: &str) -> String {
    let [f00, f01, f10, f11] = OPS[op].truth;
    let terms: Vec<String> = [
        (f00, format!("~{a} & ~{b}")),
        (f01, format!("~{a} & {b}")),
        (f10, format!("{a} & ~{b}")),
        (f11, format!("{a} & {b}")),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .map(|(_, t)| format!("({t})"))
    .collect();
    match terms.len() {
        0 => "1'b0".into(),
        4 => "1'b1".into(),
        _ => terms.join(" | "),
    }
}

/// A combinational module: `patch[c*9 + p]` in, `next[c]` out. Channels that never
/// influence the target are driven to 0.
pub fn verilog(net: &Netlist, module: &str) -> String {
    let (c, n) = (net.channels, net.inputs());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// One cell update of a logicars model: {} gates after pruning.",
        net.gates.len()
    );
    let _ = writeln!(
        out,
        "// patch[c*9 + p] = channel c at 3x3 position p (row-major, 4 = the cell)."
    );
    let _ = writeln!(
        out,
        "module {module} (\n  input  wire [{}:0] patch,\n  output wire [{}:0] next\n);",
        n - 1,
        c - 1
    );
    let sig = |s: Signal| match s {
        Signal::Input(i) => format!("patch[{i}]"),
        Signal::Gate(g) => format!("g{g}"),
    };
    for (i, g) in net.gates.iter().enumerate() {
        let _ = writeln!(
            out,
            "  wire g{i} = {}; // {}",
            verilog_expr(g.op as usize, &sig(g.a), &sig(g.b)),
            OPS[g.op as usize].name
        );
    }
    for ch in 0..c {
        match net.outputs.iter().find(|o| o.0 == ch) {
            Some(&(_, s)) => {
                let _ = writeln!(out, "  assign next[{ch}] = {};", sig(s));
            }
            None => {
                let _ = writeln!(
                    out,
                    "  assign next[{ch}] = 1'b0; // never influences the target"
                );
            }
        }
    }
    out.push_str("endmodule\n");
    out
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonNetlist {
    format: String,
    version: u32,
    channels: usize,
    /// Input `i` is channel `i / 9` at patch position `i % 9`.
    inputs: usize,
    gates: Vec<JsonGate>,
    outputs: Vec<JsonOutput>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonGate {
    op: String,
    a: String,
    b: String,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonOutput {
    channel: usize,
    signal: String,
}

fn json_signal(s: Signal) -> String {
    match s {
        Signal::Input(i) => format!("in{i}"),
        Signal::Gate(g) => format!("g{g}"),
    }
}

/// `"format": "logicars-netlist"`; signals are `in<i>` or `g<i>`.
pub fn json(net: &Netlist) -> String {
    let file = JsonNetlist {
        format: "logicars-netlist".into(),
        version: 1,
        channels: net.channels,
        inputs: net.inputs(),
        gates: net
            .gates
            .iter()
            .map(|g| JsonGate {
                op: OPS[g.op as usize].name.into(),
                a: json_signal(g.a),
                b: json_signal(g.b),
            })
            .collect(),
        outputs: net
            .outputs
            .iter()
            .map(|&(channel, s)| JsonOutput {
                channel,
                signal: json_signal(s),
            })
            .collect(),
    };
    serde_json::to_string_pretty(&file).expect("a netlist serializes") + "\n"
}

/// Reads a JSON netlist back, checking ops, signal names and topological order.
pub fn from_json(text: &str) -> Result<Netlist, NetlistError> {
    let file: JsonNetlist = serde_json::from_str(text).map_err(|e| NetlistError(e.to_string()))?;
    if file.format != "logicars-netlist" || file.version != 1 {
        return Err(NetlistError(format!(
            "not a logicars-netlist version 1 file: {} {}",
            file.format, file.version
        )));
    }
    let parse = |s: &str, gates_before: usize| -> Result<Signal, NetlistError> {
        let (kind, num) = s.split_at(if s.starts_with("in") { 2 } else { 1 });
        let n: u32 = num
            .parse()
            .map_err(|_| NetlistError(format!("bad signal '{s}'")))?;
        match kind {
            "in" if (n as usize) < file.inputs => Ok(Signal::Input(n)),
            "g" if (n as usize) < gates_before => Ok(Signal::Gate(n)),
            _ => Err(NetlistError(format!(
                "signal '{s}' is out of range or not yet defined"
            ))),
        }
    };
    let mut gates = Vec::new();
    for (i, g) in file.gates.iter().enumerate() {
        let op = OPS
            .iter()
            .position(|o| o.name == g.op)
            .ok_or_else(|| NetlistError(format!("gate {i}: unknown op {}", g.op)))?;
        gates.push(NetGate {
            op: op as u8,
            a: parse(&g.a, i)?,
            b: parse(&g.b, i)?,
        });
    }
    let outputs = file
        .outputs
        .iter()
        .map(|o| Ok((o.channel, parse(&o.signal, gates.len())?)))
        .collect::<Result<_, NetlistError>>()?;
    Ok(Netlist {
        channels: file.channels,
        gates,
        outputs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Netlist {
        Netlist {
            channels: 2,
            gates: vec![
                NetGate {
                    op: 6,
                    a: Signal::Input(4),
                    b: Signal::Input(13),
                },
                NetGate {
                    op: 14,
                    a: Signal::Gate(0),
                    b: Signal::Input(0),
                },
            ],
            outputs: vec![(0, Signal::Gate(1)), (1, Signal::Input(13))],
        }
    }

    #[test]
    fn json_round_trips() {
        let net = sample();
        assert_eq!(from_json(&json(&net)).unwrap(), net);
        assert!(from_json("{}").is_err());
        let bad = json(&net).replace("\"g0\"", "\"g7\"");
        assert!(from_json(&bad).unwrap_err().0.contains("out of range"));
    }

    #[test]
    fn verilog_expressions_follow_the_truth_tables() {
        assert_eq!(verilog_expr(0, "a", "b"), "1'b0");
        assert_eq!(verilog_expr(15, "a", "b"), "1'b1");
        assert_eq!(verilog_expr(1, "a", "b"), "(a & b)");
        assert_eq!(verilog_expr(6, "a", "b"), "(~a & b) | (a & ~b)");
        let v = verilog(&sample(), "cell");
        assert!(v.contains("module cell (") && v.contains("input  wire [17:0] patch"));
        assert!(v.contains("assign next[1] = patch[13];"));
        assert!(v.trim_end().ends_with("endmodule"));
    }

    #[test]
    fn dot_names_every_gate_and_output() {
        let d = dot(&sample());
        assert!(
            d.starts_with("digraph")
                && d.contains("g1 [label=\"NAND\"]")
                && d.contains("-> out_c1")
        );
    }
}
