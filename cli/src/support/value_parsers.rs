//! Parsers of flag values that several commands share; `--help` lists the names each
//! accepts.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use logicars::model::config::MAX_LAYERS;
use logicars::model::parametrization::Parametrization;
use logicars::model::recipe::RecipeName;
use logicars::model::task::TaskKind;
use logicars::views::picture::View;

/// Parses a task name into the library's [`TaskKind`]; `--help` lists every task.
pub fn task_parser() -> impl TypedValueParser<Value = TaskKind> {
    let values = TaskKind::ALL.map(|t| PossibleValue::new(t.name()).help(t.summary()));
    PossibleValuesParser::new(values)
        .map(|name| TaskKind::from_name(&name).expect("clap accepted only task names"))
}

/// Parses a recipe name; `--help` lists every recipe.
pub fn recipe_parser() -> impl TypedValueParser<Value = RecipeName> {
    let values = RecipeName::ALL.map(|r| PossibleValue::new(r.name()).help(r.summary()));
    PossibleValuesParser::new(values)
        .map(|name| RecipeName::from_name(&name).expect("clap accepted only recipe names"))
}

/// Parses a parametrization name.
pub fn parametrization_parser() -> impl TypedValueParser<Value = Parametrization> {
    let values = Parametrization::ALL.map(|p| PossibleValue::new(p.name()));
    PossibleValuesParser::new(values).map(|name| {
        Parametrization::from_name(&name).expect("clap accepted only parametrization names")
    })
}

/// Parses a view name into the library's [`View`]; `--help` lists every view.
pub fn view_parser() -> impl TypedValueParser<Value = View> {
    let values = View::ALL.map(|v| PossibleValue::new(v.name()).help(v.summary()));
    PossibleValuesParser::new(values).map(|name| {
        *View::ALL
            .iter()
            .find(|v| v.name() == name)
            .expect("clap accepted only view names")
    })
}

/// Parses `HxW`, e.g. `64x64`.
pub fn parse_size(text: &str) -> Result<(usize, usize), String> {
    let (h, w) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected HxW such as 64x64, got '{text}'"))?;
    let parse = |s: &str| {
        s.trim()
            .parse::<usize>()
            .map_err(|_| format!("'{s}' in '{text}' is not a whole number"))
    };
    let (h, w) = (parse(h)?, parse(w)?);
    if h == 0 || w == 0 {
        return Err(format!("the grid must not be empty, got {text}"));
    }
    Ok((h, w))
}

/// Gates per layer, first layer first (one value to clap, which would take a `Vec` for
/// many).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerWidths(pub Vec<usize>);

/// Parses layer widths, `WIDTH[xCOUNT]` separated by commas: `1024x8,512,256,128` is eight
/// layers of 1024 gates, then 512, 256 and 128.
pub fn parse_layer_widths(text: &str) -> Result<LayerWidths, String> {
    let whole = |s: &str| {
        s.trim()
            .parse::<usize>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("'{s}' in '{text}' is not a whole number above 0"))
    };
    let mut widths = Vec::new();
    for entry in text.split(',') {
        let (width, count) = match entry.split_once(['x', 'X']) {
            Some((width, count)) => (whole(width)?, whole(count)?),
            None => (whole(entry)?, 1),
        };
        if widths.len() + count > MAX_LAYERS {
            return Err(format!("'{text}' has more than {MAX_LAYERS} layers"));
        }
        widths.extend(std::iter::repeat_n(width, count));
    }
    Ok(LayerWidths(widths))
}

#[cfg(test)]
mod tests {
    use super::parse_layer_widths;

    #[test]
    fn layer_widths_repeat_where_a_count_is_given() {
        assert_eq!(
            parse_layer_widths("1024x2,512, 8").unwrap().0,
            [1024, 1024, 512, 8]
        );
        assert_eq!(parse_layer_widths("16").unwrap().0, [16]);
    }

    #[test]
    fn layer_widths_refuse_empty_zero_and_words() {
        for (text, needle) in [
            ("", "'' in '' is not a whole number above 0"),
            ("64,,8", "'' in '64,,8' is not"),
            ("64x0", "'0' in '64x0' is not"),
            ("0", "'0' in '0' is not"),
            ("wide", "'wide' in 'wide' is not"),
            ("8x100000000000", "more than 256 layers"),
        ] {
            let error = parse_layer_widths(text).unwrap_err();
            assert!(error.contains(needle), "{text}: {error}");
        }
    }
}
