//! Function names as people read them: Rust symbols demangled without their hash, and
//! the module of the library they belong to.

/// A symbol demangled (Rust's legacy or v0 scheme), without the hash; other names as
/// they are.
pub fn demangle(symbol: &str) -> String {
    match rustc_demangle::try_demangle(symbol) {
        Ok(d) => format!("{d:#}"),
        Err(_) => symbol.to_string(),
    }
}

/// The names the same kernel has at each instruction set: the multiversioned kernels
/// end in `::avx512`, `::avx2` or `::baseline`. cachegrind runs the AVX2 path, so its
/// count of a kernel is matched to the samples of the kernel at any level this way.
pub fn without_simd_level(function: &str) -> &str {
    ["::avx512", "::avx2", "::baseline"]
        .iter()
        .find_map(|level| function.strip_suffix(level))
        .unwrap_or(function)
}

/// The group a function is shown under: `logicars::<module>` for the library's code
/// (the first `logicars::` path in the name, so trait impls count where they are
/// written), the crate for other Rust code, and the bracketed library (`[libm]`,
/// `[kernel]`) for code outside the program.
pub fn module_of(function: &str) -> String {
    if let Some(rest) = function.strip_prefix('[') {
        return format!("[{}]", rest.split(']').next().unwrap_or(rest));
    }
    if let Some(at) = function.find("logicars::") {
        let path = &function[at + "logicars::".len()..];
        let module = path
            .split("::")
            .next()
            .unwrap_or(path)
            .trim_end_matches(|c: char| !c.is_alphanumeric() && c != '_');
        return format!("logicars::{module}");
    }
    let name = function.trim_start_matches(['<', '&', '*']);
    let name = name.strip_prefix("mut ").unwrap_or(name);
    match name.find("::") {
        Some(end) if !name[..end].contains([' ', '<']) => name[..end].to_string(),
        _ => "(other)".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_symbols_lose_their_hash() {
        assert_eq!(
            demangle("_ZN8logicars7kernels4soft10forward_at6avx51217h62722d7e69b63bfbE"),
            "logicars::kernels::soft::forward_at::avx512"
        );
        assert_eq!(demangle("__ieee754_exp_fma"), "__ieee754_exp_fma");
    }

    #[test]
    fn modules_group_by_library_module_crate_or_library() {
        assert_eq!(
            module_of("logicars::kernels::soft::forward_at::avx512"),
            "logicars::kernels"
        );
        assert_eq!(
            module_of("<logicars::model::gates::Gate as core::fmt::Debug>::fmt"),
            "logicars::model"
        );
        assert_eq!(
            module_of("rayon::iter::plumbing::bridge_producer_consumer::helper"),
            "rayon"
        );
        assert_eq!(
            module_of("<alloc::vec::Vec<T> as core::ops::Drop>::drop"),
            "alloc"
        );
        assert_eq!(module_of("[libm] __ieee754_exp_fma"), "[libm]");
        assert_eq!(module_of("[kernel]"), "[kernel]");
        assert_eq!(module_of("main"), "(other)");
    }

    #[test]
    fn a_kernel_is_one_name_at_every_instruction_set() {
        assert_eq!(
            without_simd_level("logicars::kernels::soft::forward_at::avx512"),
            "logicars::kernels::soft::forward_at"
        );
        assert_eq!(
            without_simd_level("logicars::kernels::soft::forward_at::avx2"),
            "logicars::kernels::soft::forward_at"
        );
        assert_eq!(without_simd_level("main"), "main");
    }
}
