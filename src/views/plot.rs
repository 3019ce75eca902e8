//! SVG charts: the training loss curve, gate histograms, sweeps and the robustness
//! experiment's error per step.

use plotters::prelude::*;

use crate::error::PlotError;

use crate::sweep::Outcome;
use crate::train::EpochMetrics;

/// Losses of 0 are drawn at this floor, since a log scale has no zero.
pub const LOG_FLOOR: f64 = 1e-3;

type PlotResult = Result<(), Box<dyn std::error::Error>>;

/// The series' labels in a framed box.
fn draw_legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
}

/// The SVG text that `draw` makes; `what` names the plot in the error.
fn svg_of(
    what: &'static str,
    draw: impl FnOnce(&mut String) -> PlotResult,
) -> Result<String, PlotError> {
    let mut svg = String::new();
    draw(&mut svg).map_err(|e| PlotError {
        what,
        message: e.to_string(),
    })?;
    Ok(svg)
}

/// Soft and hard loss per epoch on a log scale.
pub fn loss_svg(
    metrics: &[EpochMetrics],
    title: &str,
    mark: Option<(usize, &str)>,
) -> Result<String, PlotError> {
    svg_of("the loss plot", |svg| draw_loss(svg, metrics, title, mark))
}

/// `mark`: an epoch to draw as a vertical line, with its label (where a run chose its
/// start, and its soft loss moves from the curriculum's grids to the task's).
fn draw_loss(
    svg: &mut String,
    metrics: &[EpochMetrics],
    title: &str,
    mark: Option<(usize, &str)>,
) -> PlotResult {
    let root = SVGBackend::with_string(svg, (800, 450)).into_drawing_area();
    root.fill(&WHITE)?;
    let epochs = metrics.last().map_or(1, |m| m.epoch) as f64;
    let floor = |v: f64| v.max(LOG_FLOOR);
    let top = metrics
        .iter()
        .map(|m| m.metrics.soft_loss.max(m.metrics.hard_loss))
        .fold(1.0, f64::max)
        * 2.0;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..epochs, (LOG_FLOOR..top).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_desc(format!("loss (0 drawn at {LOG_FLOOR})"))
        .draw()?;
    chart
        .draw_series(LineSeries::new(
            metrics
                .iter()
                .map(|m| (m.epoch as f64, floor(m.metrics.soft_loss))),
            &BLUE,
        ))?
        .label("soft loss")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
    chart
        .draw_series(LineSeries::new(
            metrics
                .iter()
                .map(|m| (m.epoch as f64, floor(m.metrics.hard_loss))),
            &RED,
        ))?
        .label("hard loss")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
    if let Some((epoch, label)) = mark {
        let x = epoch as f64;
        chart
            .draw_series(LineSeries::new([(x, LOG_FLOOR), (x, top)], BLACK.mix(0.4)))?
            .label(label)
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.4)));
    }
    draw_legend(&mut chart)?;
    root.present()?;
    Ok(())
}

/// A horizontal bar per label, longest first (the notebook's gate histogram).
pub fn histogram_svg(counts: &[(String, usize)], title: &str) -> Result<String, PlotError> {
    svg_of("the histogram", |svg| draw_histogram(svg, counts, title))
}

fn draw_histogram(svg: &mut String, counts: &[(String, usize)], title: &str) -> PlotResult {
    let mut sorted: Vec<&(String, usize)> = counts.iter().collect();
    sorted.sort_by_key(|(_, n)| *n);
    let height = 120 + 28 * sorted.len() as u32;
    let root = SVGBackend::with_string(svg, (800, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let max = sorted.iter().map(|(_, n)| *n).max().unwrap_or(1).max(1);
    let labels: Vec<String> = sorted.iter().map(|(l, _)| l.clone()).collect();
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(130)
        .build_cartesian_2d(
            0usize..max + max / 10 + 1,
            (0..sorted.len()).into_segmented(),
        )?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("gates")
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .y_labels(sorted.len())
        .draw()?;
    chart.draw_series(sorted.iter().enumerate().map(|(i, (_, n))| {
        let mut bar = Rectangle::new(
            [
                (0, SegmentValue::Exact(i)),
                (*n, SegmentValue::Exact(i + 1)),
            ],
            RGBColor(46, 134, 193).mix(0.8).filled(),
        );
        bar.set_margin(4, 4, 0, 0);
        bar
    }))?;
    root.present()?;
    Ok(())
}

/// Epochs to an exact circuit, one row of dots per setting; runs solved but not exact are
/// hollow dots at their solved epoch, the others crosses at the right edge, past the
/// planned `epochs`.
pub fn sweep_svg(
    outcomes: &[Outcome],
    labels: &[String],
    epochs: usize,
    title: &str,
) -> Result<String, PlotError> {
    svg_of("the sweep plot", |svg| {
        draw_sweep(svg, outcomes, labels, epochs, title)
    })
}

fn draw_sweep(
    svg: &mut String,
    outcomes: &[Outcome],
    labels: &[String],
    epochs: usize,
    title: &str,
) -> PlotResult {
    let height = 140 + 40 * labels.len() as u32;
    let root = SVGBackend::with_string(svg, (920, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let unsolved_at = epochs as f64 * 1.06;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(320)
        .build_cartesian_2d(
            0f64..epochs as f64 * 1.1,
            (0..labels.len()).into_segmented(),
        )?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("epochs until exact, every attempt (o: solved, not exact; x: neither)")
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .y_labels(labels.len())
        .draw()?;
    let blue = RGBColor(46, 134, 193);
    chart.draw_series(outcomes.iter().filter(|o| o.exact).map(|o| {
        let e = o.epochs_to_exact().unwrap_or(o.epochs) as f64;
        Circle::new(
            (e, SegmentValue::CenterOf(o.setting)),
            4,
            blue.mix(0.7).filled(),
        )
    }))?;
    let orange = RGBColor(230, 126, 34);
    chart.draw_series(outcomes.iter().filter(|o| !o.exact).filter_map(|o| {
        let e = o.solved_at? as f64;
        Some(Circle::new(
            (e, SegmentValue::CenterOf(o.setting)),
            4,
            orange.stroke_width(2),
        ))
    }))?;
    let neither = |o: &&Outcome| !o.exact && o.solved_at.is_none();
    chart.draw_series(outcomes.iter().filter(neither).map(|o| {
        Cross::new(
            (unsolved_at, SegmentValue::CenterOf(o.setting)),
            5,
            RED.stroke_width(2),
        )
    }))?;
    root.present()?;
    Ok(())
}

/// One curve of the robustness plot: its label and the error after every step.
pub struct ErrorCurve<'a> {
    pub label: String,
    pub errors: &'a [u64],
}

/// The paper's robustness figure: error (wrong bits) per step, one line per model.
pub fn robustness_svg(curves: &[ErrorCurve], title: &str) -> Result<String, PlotError> {
    svg_of("the robustness plot", |svg| {
        draw_robustness(svg, curves, title)
    })
}

fn draw_robustness(svg: &mut String, curves: &[ErrorCurve], title: &str) -> PlotResult {
    let root = SVGBackend::with_string(svg, (900, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let steps = curves.iter().map(|c| c.errors.len()).max().unwrap_or(1);
    let top = curves
        .iter()
        .flat_map(|c| c.errors.iter().copied())
        .max()
        .unwrap_or(1)
        .max(1) as f64
        * 1.05;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..steps as f64, 0f64..top)?;
    chart
        .configure_mesh()
        .x_desc("step")
        .y_desc("error (wrong cells)")
        .draw()?;
    let colours = [
        RGBColor(46, 134, 193),
        RGBColor(231, 76, 60),
        RGBColor(39, 174, 96),
    ];
    for (i, curve) in curves.iter().enumerate() {
        let colour = colours[i % colours.len()];
        chart
            .draw_series(LineSeries::new(
                curve
                    .errors
                    .iter()
                    .enumerate()
                    .map(|(t, &e)| ((t + 1) as f64, e as f64)),
                colour.stroke_width(1),
            ))?
            .label(curve.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
    }
    draw_legend(&mut chart)?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::Metrics;

    fn metrics() -> Vec<EpochMetrics> {
        (1..=50)
            .map(|e| EpochMetrics {
                epoch: e,
                metrics: Metrics {
                    soft_loss: 100.0 / e as f64,
                    hard_loss: if e > 40 { 0.0 } else { 60.0 - e as f64 },
                    accuracy: 0.9,
                },
            })
            .collect()
    }

    #[test]
    fn loss_plot_is_an_svg_with_both_curves() {
        let svg = loss_svg(&metrics(), "test run", None).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("soft loss") && svg.contains("hard loss") && svg.contains("test run"));
        let lines = svg.matches("<polyline").count();
        assert!(lines >= 2, "two curves");
        let marked = loss_svg(&metrics(), "test run", Some((20, "start 2 of 4 chosen"))).unwrap();
        assert!(marked.contains("start 2 of 4 chosen"));
        assert!(marked.matches("<polyline").count() > lines, "and the mark");
    }

    #[test]
    fn histogram_has_a_bar_per_label() {
        let counts = vec![
            ("AND".to_string(), 5),
            ("XOR".to_string(), 9),
            ("NOT_A".to_string(), 1),
        ];
        let svg = histogram_svg(&counts, "gates").unwrap();
        assert!(svg.contains("XOR") && svg.contains("NOT_A"));
        assert!(
            svg.matches("<rect").count() > 3,
            "background plus three bars"
        );
    }

    #[test]
    fn robustness_plot_has_a_line_and_a_label_per_model() {
        let (a, b) = (vec![40, 30, 20, 25], vec![400, 380, 390]);
        let curves = [
            ErrorCurve {
                label: "async model".into(),
                errors: &a,
            },
            ErrorCurve {
                label: "sync model".into(),
                errors: &b,
            },
        ];
        let svg = robustness_svg(&curves, "robustness").unwrap();
        assert!(svg.contains("async model") && svg.contains("sync model"));
        assert!(svg.matches("<polyline").count() >= 2, "two curves");
    }
}
