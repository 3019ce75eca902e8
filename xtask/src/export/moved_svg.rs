//! "Where the time moved" as a picture: for each workload (rows) and variant (columns),
//! a diverging bar per function of the CPU milliseconds per run it gained (red, right)
//! or lost (green, left) against the baseline.

use anyhow::{anyhow, Result};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::results::report::Report;
use crate::results::samples::{Moved, MovedFunction};
use crate::support::symbols::without_simd_level;

const PANEL_WIDTH: u32 = 520;
const PANEL_HEIGHT: u32 = 220;
/// Where the bars' zero line sits, as a share of the panel's width (names to its left).
const ZERO_AT: f64 = 0.68;

/// The SVG, or `None` when the report took no samples.
pub fn render(report: &Report) -> Result<Option<String>> {
    let rows: Vec<_> = report
        .workloads
        .iter()
        .filter(|w| !w.moved.is_empty())
        .collect();
    let Some(columns) = rows.iter().map(|w| w.moved.len()).max() else {
        return Ok(None);
    };
    let mut svg = String::new();
    {
        let size = (
            PANEL_WIDTH * columns as u32,
            PANEL_HEIGHT * rows.len() as u32,
        );
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        let drawn: DrawResult = (|| {
            root.fill(&WHITE)?;
            let areas = root.split_evenly((rows.len(), columns));
            for (r, w) in rows.iter().enumerate() {
                for (c, m) in w.moved.iter().enumerate() {
                    panel(
                        &areas[r * columns + c],
                        &w.name,
                        &report.settings.baseline,
                        m,
                    )?;
                }
            }
            root.present()?;
            Ok(())
        })();
        drawn.map_err(|e| anyhow!("drawing where the time moved: {e}"))?;
    }
    Ok(Some(svg))
}

type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

fn panel(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    workload: &str,
    baseline: &str,
    m: &Moved,
) -> DrawResult {
    let (width, height) = area.dim_in_pixel();
    let (width, height) = (width as i32, height as i32);
    let change = if m.baseline_ms > 0.0 {
        100.0 * (m.variant_ms / m.baseline_ms - 1.0)
    } else {
        0.0
    };
    let title = format!(
        "{workload}: {} vs {baseline} ({change:+.1}% CPU)",
        m.variant
    );
    area.draw(&Text::new(title, (8, 6), ("sans-serif", 14).into_font()))?;
    let scale = m
        .functions
        .iter()
        .map(|f| f.delta_ms.abs())
        .fold(0.0, f64::max)
        .max(1e-9);
    let zero = (width as f64 * ZERO_AT) as i32;
    let half = ((width as f64 * (1.0 - ZERO_AT)) as i32 - 40)
        .min(zero - 180)
        .max(20);
    let (top, bottom) = (30, height - 10);
    area.draw(&PathElement::new(
        vec![(zero, top), (zero, bottom)],
        BLACK.mix(0.6),
    ))?;
    let bars = Bars {
        zero,
        half,
        scale,
        step: (bottom - top) / m.functions.len().max(1) as i32,
    };
    for (i, f) in m.functions.iter().enumerate() {
        bars.draw(area, f, top + bars.step * i as i32)?;
    }
    Ok(())
}

/// Where a panel's bars go: the zero line, the length of the longest bar and the value
/// it stands for, the height of a bar's row.
struct Bars {
    zero: i32,
    half: i32,
    scale: f64,
    step: i32,
}

impl Bars {
    /// One function's bar in the row starting at `y`, its name left of the zero line and
    /// its value at the bar's end.
    fn draw(
        &self,
        area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
        f: &MovedFunction,
        y: i32,
    ) -> DrawResult {
        let (zero, step) = (self.zero, self.step);
        let length = (f.delta_ms / self.scale * f64::from(self.half)) as i32;
        let colour = if f.delta_ms > 0.0 { RED } else { GREEN };
        let (x0, x1) = if length >= 0 {
            (zero, zero + length.max(1))
        } else {
            (zero + length, zero)
        };
        area.draw(&Rectangle::new(
            [(x0, y + 3), (x1, y + step - 3)],
            colour.mix(0.7).filled(),
        ))?;
        let style = |size: u32, h: HPos| {
            ("sans-serif", size)
                .into_font()
                .into_text_style(area)
                .pos(Pos::new(h, VPos::Center))
        };
        area.draw(&Text::new(
            last_segments(&f.function),
            (zero - self.half - 6, y + step / 2),
            style(11, HPos::Right),
        ))?;
        area.draw(&Text::new(
            format!("{:+.1} ms", f.delta_ms),
            (zero.max(zero + length) + 4, y + step / 2),
            style(10, HPos::Left),
        ))?;
        Ok(())
    }
}

/// The last two `::` segments of a name (a kernel's instruction set left out), short
/// enough for a label.
fn last_segments(name: &str) -> String {
    let name = without_simd_level(name);
    let parts: Vec<&str> = name.split("::").collect();
    let tail = parts[parts.len().saturating_sub(2)..].join("::");
    if tail.chars().count() > 40 {
        tail.chars().take(39).collect::<String>() + "…"
    } else {
        tail
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture::fixed_report;

    #[test]
    fn draws_a_bar_per_moved_function_or_nothing_without_samples() {
        let mut report = fixed_report();
        let svg = render(&report).unwrap().expect("the fixture is sampled");
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("train: pgo vs release"), "{svg}");
        assert!(svg.contains("soft::forward_at"), "{svg}");
        let bars: usize = report
            .workloads
            .iter()
            .flat_map(|w| &w.moved)
            .map(|m| m.functions.len())
            .sum();
        // One background rect, then a bar per function.
        assert_eq!(svg.matches("<rect").count(), 1 + bars);
        for w in &mut report.workloads {
            w.moved.clear();
        }
        assert_eq!(render(&report).unwrap(), None);
    }

    #[test]
    fn labels_keep_the_last_two_segments() {
        assert_eq!(
            last_segments("logicars::kernels::soft::forward_at::avx512"),
            "soft::forward_at"
        );
        assert_eq!(last_segments("main"), "main");
    }
}
