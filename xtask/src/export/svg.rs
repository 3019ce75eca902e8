//! The report as a picture: per workload, each variant's times as a box plot relative to
//! the baseline's median (the dashed line), then every speedup with its 95% interval.

use anyhow::{anyhow, Result};
use plotters::prelude::*;

use crate::analysis::stats;
use crate::results::report::{Report, WorkloadReport};
use crate::support::label::label;

const PANEL_HEIGHT: u32 = 260;
const WIDTH: u32 = 900;

pub fn render(report: &Report) -> Result<String> {
    let mut svg = String::new();
    draw(&mut svg, report).map_err(|e| anyhow!("drawing the report's SVG: {e}"))?;
    Ok(svg)
}

type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

fn draw(svg: &mut String, report: &Report) -> DrawResult {
    let panels = report.workloads.len() + 1;
    let root =
        SVGBackend::with_string(svg, (WIDTH, PANEL_HEIGHT * panels as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let areas = root.split_evenly((panels, 1));
    for (area, workload) in areas.iter().zip(&report.workloads) {
        draw_boxes(area, workload)?;
    }
    draw_speedups(&areas[panels - 1], report)?;
    root.present()?;
    Ok(())
}

/// Each variant's times over the baseline's median: below 1 is faster.
fn draw_boxes(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    w: &WorkloadReport,
) -> DrawResult {
    let base = stats::median(w.results[0].metric_times(w.metric));
    let relative: Vec<Vec<f32>> = w
        .results
        .iter()
        .map(|r| {
            r.metric_times(w.metric)
                .iter()
                .map(|t| (t / base) as f32)
                .collect()
        })
        .collect();
    let (lo, hi) = relative
        .iter()
        .flatten()
        .fold((1.0f32, 1.0f32), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let pad = ((hi - lo) * 0.1).max(0.01);
    let n = w.results.len();
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("{}: {} time / baseline median", w.name, label(&w.metric)),
            ("sans-serif", 16),
        )
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d((0..n).into_segmented(), (lo - pad)..(hi + pad))?;
    let names: Vec<String> = w.results.iter().map(|r| r.variant.clone()).collect();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n)
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(i) => names.get(*i).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .draw()?;
    chart.draw_series(DashedLineSeries::new(
        [
            (SegmentValue::Exact(0), 1.0f32),
            (SegmentValue::Last, 1.0f32),
        ],
        6,
        4,
        BLACK.into(),
    ))?;
    chart.draw_series(relative.iter().enumerate().map(|(i, values)| {
        Boxplot::new_vertical(SegmentValue::CenterOf(i), &Quartiles::new(values))
            .width(30)
            .style(Palette99::pick(i))
    }))?;
    Ok(())
}

/// Every variant's speedup on every workload, with its interval; 1 is the baseline.
fn draw_speedups(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    report: &Report,
) -> DrawResult {
    let n = report.summary.len();
    let k = report.workloads.len();
    let all = report.workloads.iter().flat_map(|w| &w.results);
    let (lo, hi) = all.fold((1.0f64, 1.0f64), |(lo, hi), r| {
        (lo.min(r.speedup_ci95.0), hi.max(r.speedup_ci95.1))
    });
    let pad = ((hi - lo) * 0.1).max(0.01);
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("speedup over {} (95% intervals)", report.settings.baseline),
            ("sans-serif", 16),
        )
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), (lo - pad)..(hi + pad))?;
    let names: Vec<String> = report.summary.iter().map(|r| r.variant.clone()).collect();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n)
        .x_label_formatter(&|x| names.get(x.round() as usize).cloned().unwrap_or_default())
        .draw()?;
    chart.draw_series(DashedLineSeries::new(
        [(-0.5, 1.0), (n as f64 - 0.5, 1.0)],
        6,
        4,
        BLACK.into(),
    ))?;
    for (j, w) in report.workloads.iter().enumerate() {
        let colour = Palette99::pick(j);
        let offset = |i: usize| i as f64 + 0.6 * ((j as f64 + 0.5) / k as f64 - 0.5);
        chart
            .draw_series(w.results.iter().enumerate().map(|(i, r)| {
                ErrorBar::new_vertical(
                    offset(i),
                    r.speedup_ci95.0,
                    r.speedup,
                    r.speedup_ci95.1,
                    colour.filled(),
                    8,
                )
            }))?
            .label(w.name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 12, y + 4)], colour.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture::fixed_report;

    #[test]
    fn draws_a_panel_per_workload_and_the_speedups() {
        let svg = render(&fixed_report()).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..50]);
        for text in [
            "train: compute time",
            "eval: compute time",
            "speedup over release",
        ] {
            assert!(svg.contains(text), "missing {text}");
        }
        // A box per variant and workload: plotters draws each box as a rect.
        assert!(svg.matches("<rect").count() >= 6);
    }
}
