//! The machine code two builds made of one function: found by its demangled name in
//! each binary's symbol table (`llvm-nm`), disassembled with `llvm-objdump`, and
//! summarised so the differences stand out (size, vector instructions, calls, loops).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};

use crate::support::symbols::demangle;

/// A function's code in one binary.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Code {
    /// The symbol disassembled (the largest, when a name has several instantiations).
    pub symbol: String,
    /// How many symbols share the demangled name.
    pub instantiations: usize,
    pub bytes: u64,
    /// Instructions as `llvm-objdump` prints them, without addresses or comments.
    pub listing: Vec<String>,
    pub stats: CodeStats,
}

/// What distinguishes two compilations of one function at a glance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CodeStats {
    pub instructions: usize,
    /// Instructions on 512-bit (`zmm`) or 256-bit (`ymm`) registers.
    pub zmm: usize,
    pub ymm: usize,
    pub calls: usize,
    /// Conditional and unconditional jumps.
    pub jumps: usize,
    /// Jumps backwards inside the function: its loops.
    pub loops: usize,
}

/// The defined function symbols of a binary: demangled name -> (symbol, size), largest
/// first.
pub fn symbols(nm: &Path, binary: &Path) -> Result<BTreeMap<String, Vec<(String, u64)>>> {
    let out = duct::cmd(nm, ["--defined-only", "-S", &binary.display().to_string()])
        .stdout_capture()
        .stderr_null()
        .run()
        .with_context(|| format!("{} -S {}", nm.display(), binary.display()))?;
    Ok(parse_nm(&String::from_utf8_lossy(&out.stdout)))
}

/// `ADDRESS SIZE TYPE NAME` lines of text symbols (`t`/`T`), grouped by demangled name.
fn parse_nm(text: &str) -> BTreeMap<String, Vec<(String, u64)>> {
    let mut by_name: BTreeMap<String, Vec<(String, u64)>> = BTreeMap::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [_, size, kind, name] = fields[..] else {
            continue;
        };
        let Ok(size) = u64::from_str_radix(size, 16) else {
            continue;
        };
        if kind.eq_ignore_ascii_case("t") {
            by_name
                .entry(demangle(name))
                .or_default()
                .push((name.to_string(), size));
        }
    }
    for symbols in by_name.values_mut() {
        symbols.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    }
    by_name
}

/// The code of the function named `function` in `binary`, `None` if it has no symbol
/// there (inlined everywhere, or not in this build).
pub fn code_of(
    objdump: &Path,
    binary: &Path,
    table: &BTreeMap<String, Vec<(String, u64)>>,
    function: &str,
) -> Result<Option<Code>> {
    let Some(symbols) = table.get(function) else {
        return Ok(None);
    };
    let (symbol, bytes) = symbols[0].clone();
    let out = duct::cmd(
        objdump,
        [
            "-d",
            "--no-show-raw-insn",
            &format!("--disassemble-symbols={symbol}"),
            &binary.display().to_string(),
        ],
    )
    .stdout_capture()
    .stderr_null()
    .run()
    .with_context(|| format!("{} -d {}", objdump.display(), binary.display()))?;
    let instructions = parse_objdump(&String::from_utf8_lossy(&out.stdout), &symbol);
    Ok(Some(Code {
        instantiations: symbols.len(),
        bytes,
        stats: stats(&instructions),
        listing: instructions.into_iter().map(|i| i.text).collect(),
        symbol,
    }))
}

/// One instruction of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Instruction {
    address: u64,
    /// As printed, with a jump's or call's target named instead of addressed (`<+0x84>`
    /// inside the function, `<name+0x10>` outside), so equal code reads equal in two
    /// binaries.
    text: String,
    /// The address a jump or call goes to.
    target: Option<u64>,
}

/// `ADDRESS: <tab>MNEMONIC OPERANDS [<symbol+offset>] [# comment]` lines of the function
/// `symbol`.
fn parse_objdump(text: &str, symbol: &str) -> Vec<Instruction> {
    text.lines()
        .filter_map(|line| {
            let (address, rest) = line.trim_start().split_once(':')?;
            let address = u64::from_str_radix(address, 16).ok()?;
            let instruction = rest.split('#').next()?.trim();
            if instruction.is_empty() {
                return None;
            }
            let (text, target) = named_target(instruction, symbol);
            Some(Instruction {
                address,
                text,
                target,
            })
        })
        .collect()
}

/// The instruction with its target named (see [`Instruction::text`]), and the target's
/// address if it has one.
fn named_target(instruction: &str, symbol: &str) -> (String, Option<u64>) {
    let words: Vec<&str> = instruction.split_whitespace().collect();
    let named = instruction
        .rfind(" <")
        .filter(|_| instruction.ends_with('>'));
    let (Some(at), Some(hex)) = (named, words.get(1)) else {
        return (words.join(" "), None);
    };
    let label = &instruction[at + 2..instruction.len() - 1];
    let label = match label.strip_prefix(symbol) {
        Some(offset) => offset.to_string(),
        None => {
            let (name, offset) = label.split_once('+').unwrap_or((label, ""));
            let offset = if offset.is_empty() {
                String::new()
            } else {
                format!("+{offset}")
            };
            format!("{}{offset}", demangle(name))
        }
    };
    let target = u64::from_str_radix(hex.trim_start_matches("0x"), 16).ok();
    (format!("{} <{label}>", words[0]), target)
}

fn stats(instructions: &[Instruction]) -> CodeStats {
    let mut s = CodeStats {
        instructions: instructions.len(),
        ..Default::default()
    };
    for i in instructions {
        let mnemonic = i.text.split(' ').next().unwrap_or("");
        s.zmm += usize::from(i.text.contains("%zmm"));
        s.ymm += usize::from(i.text.contains("%ymm"));
        s.calls += usize::from(mnemonic.starts_with("call"));
        if mnemonic.starts_with('j') {
            s.jumps += 1;
            s.loops += usize::from(i.target.is_some_and(|t| t <= i.address));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_group_by_demangled_name_largest_first() {
        let text = "00000000001edcd0 00000000000004eb t _ZN8logicars5model5gates7softmax17hae2635a549d89130E\n\
                    00000000001ee000 0000000000000010 t _ZN8logicars5model5gates7softmax17h0000000000000001E\n\
                    0000000000400000 0000000000000008 D some_data\n\
                    0000000000001000 T no_size_line\n";
        let table = parse_nm(text);
        assert_eq!(table.len(), 1);
        let softmax = &table["logicars::model::gates::softmax"];
        assert_eq!(softmax.len(), 2);
        assert_eq!(softmax[0].1, 0x4eb);
    }

    /// By hand: a loop (the `jne` back to 0x10), a call, a forward jump, two 512-bit and
    /// one 256-bit instruction.
    #[test]
    fn a_listing_reads_as_instructions_and_counts() {
        let text = "\n/x/logicars:\tfile format elf64-x86-64\n\nDisassembly of section .text:\n\n\
                    0000000000000010 <f>:\n\
                    \x20     10:      \tvaddps\t%zmm0, %zmm1, %zmm2\n\
                    \x20     16:      \tvmulps\t(%rdi), %zmm2, %zmm2   # a comment\n\
                    \x20     1c:      \tvmovups\t%ymm0, (%rsi)\n\
                    \x20     20:      \tcallq\t0x400 <_ZN8logicars5model5gates7softmax17hae2635a549d89130E>\n\
                    \x20     25:      \tjne\t0x10 <f>\n\
                    \x20     27:      \tje\t0x30 <f+0x20>\n\
                    \x20     29:      \tretq\n";
        let instructions = parse_objdump(text, "f");
        let texts: Vec<&str> = instructions.iter().map(|i| i.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "vaddps %zmm0, %zmm1, %zmm2",
                "vmulps (%rdi), %zmm2, %zmm2",
                "vmovups %ymm0, (%rsi)",
                "callq <logicars::model::gates::softmax>",
                "jne <>",
                "je <+0x20>",
                "retq"
            ]
        );
        assert_eq!(
            (instructions[4].address, instructions[4].target),
            (0x25, Some(0x10))
        );
        assert_eq!(
            stats(&instructions),
            CodeStats {
                instructions: 7,
                zmm: 2,
                ymm: 1,
                calls: 1,
                jumps: 2,
                loops: 1
            }
        );
    }
}
