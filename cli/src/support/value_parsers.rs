//! Parsers of flag values that several commands share; `--help` lists the names each
//! accepts.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
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
