//! The training knobs as `train` flags: one flag per entry of the library's table
//! ([`KNOBS`]), named by its key, with its help; only the kind of value is checked while
//! parsing (ranges are the settings check's).

use clap::builder::{PossibleValuesParser, TypedValueParser, ValueParser};
use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};
use logicars::model::ca_rule::CaRule;
use logicars::tasks::knobs::{Knob, Override, Target, KNOBS};

use crate::support::value_parsers::{parametrization_parser, recipe_parser};

/// The knob flags given, in table order (the order they apply in).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KnobFlags(pub Vec<Override>);

impl KnobFlags {
    /// Arg ids of the knob flags (their keys), which `--resume` refuses.
    pub fn ids() -> impl Iterator<Item = &'static str> {
        KNOBS.iter().map(|knob| knob.key)
    }
}

/// The flag of one knob. A number may be written negative (`--lr -1`), so that the
/// range check, not the parser, answers it, with the same line as `--set lr=-1`.
fn flag(knob: &'static Knob) -> Arg {
    Arg::new(knob.key)
        .long(knob.key)
        .value_name(knob.value_name)
        .help(knob.help)
        .allow_negative_numbers(matches!(knob.target, Target::Number(_)))
        .value_parser(value_parser(knob))
}

/// Reads a knob's value as `--set` does; names and switches list their possible values
/// in `--help`.
fn value_parser(knob: &'static Knob) -> ValueParser {
    match knob.target {
        Target::Recipe => recipe_parser()
            .try_map(move |name| knob.parse(name.name()))
            .into(),
        Target::Parametrization => parametrization_parser()
            .try_map(move |p| knob.parse(p.name()))
            .into(),
        Target::Switch(_) => PossibleValuesParser::new(["true", "false"])
            .try_map(move |text| knob.parse(&text))
            .into(),
        // The rule's own error says what is wrong with it (a digit, too many states).
        Target::Rule => ValueParser::new(move |text: &str| {
            if text != "none" {
                text.parse::<CaRule>().map_err(|e| e.to_string())?;
            }
            knob.parse(text)
        }),
        Target::Count(_) | Target::Number(_) => ValueParser::new(move |text: &str| {
            knob.parse(text).map_err(|e| format!("expected {e}"))
        }),
    }
}

impl Args for KnobFlags {
    fn augment_args(cmd: Command) -> Command {
        KNOBS.iter().fold(cmd, |cmd, knob| cmd.arg(flag(knob)))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for KnobFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut flags = KnobFlags::default();
        flags.update_from_arg_matches(matches)?;
        Ok(flags)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        for knob in KNOBS {
            if let Some(change) = matches.get_one::<Override>(knob.key) {
                self.0.retain(|given| given.knob().key != knob.key);
                self.0.push(*change);
            }
        }
        let order = |o: &Override| KNOBS.iter().position(|k| k.key == o.knob().key);
        self.0.sort_by_key(order);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use logicars::model::task::TaskKind;
    use logicars::tasks::preset;

    use super::*;

    #[derive(Debug, Parser)]
    struct Flags {
        #[command(flatten)]
        knobs: KnobFlags,
    }

    fn parse(args: &[&str]) -> Result<KnobFlags, clap::Error> {
        Flags::try_parse_from([&["train"], args].concat()).map(|f| f.knobs)
    }

    /// Each knob as a flag gives what the same `--set` gives, in table order.
    #[test]
    fn every_knob_is_a_flag_equal_to_its_key() {
        let (config, settings) = preset(TaskKind::Checkerboard, false);
        let mut args = Vec::new();
        let mut sets = Vec::new();
        for knob in KNOBS.iter().rev() {
            let value = knob.value(&config, &settings).to_string();
            sets.push(format!("{}={value}", knob.key).parse::<Override>().unwrap());
            args.push(format!("--{}", knob.key));
            args.push(value);
        }
        sets.reverse();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_eq!(parse(&args).unwrap(), KnobFlags(sets));
        assert_eq!(parse(&[]).unwrap(), KnobFlags::default());
    }

    #[test]
    fn a_flag_refuses_what_its_key_refuses() {
        let err = parse(&["--lr", "fast"]).unwrap_err().to_string();
        assert!(err.contains("'--lr <LR>': expected a number"), "{err}");
        let err = parse(&["--periodic", "yes"]).unwrap_err().to_string();
        assert!(err.contains("[possible values: true, false]"), "{err}");
        assert!(parse(&["--recipe", "magic"]).is_err());
        let ranges_are_checked_later = parse(&["--batch", "0", "--hard-gates", "2"]);
        assert_eq!(ranges_are_checked_later.unwrap().0.len(), 2);
    }
}
