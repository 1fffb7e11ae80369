//! Every pass weft has, in one table sorted by name: what `weft opt
//! --list-passes` prints, what `--passes` and the file tests look names up
//! in, and where each pass's options are declared.

use crate::pass::{OptionSpec, Options, Pass, PassError};
use crate::passes;
use crate::spec::{self, PassSpec};

/// One pass of the table.
pub struct PassInfo {
    /// Its kebab-case name.
    pub name: &'static str,
    /// What it does, in a line.
    pub summary: &'static str,
    /// The options it takes.
    pub options: &'static [OptionSpec],
    /// Makes the pass from checked options.
    make: fn(&Options) -> Box<dyn Pass>,
}

/// The table, sorted by name (a test keeps it so).
static PASSES: &[PassInfo] = &[
    PassInfo {
        name: passes::async_collective_creator::NAME,
        summary: "turns synchronous collectives into start/done pairs (first-class where XLA has them, else async-start/async-done)",
        options: passes::async_collective_creator::OPTIONS,
        make: passes::async_collective_creator::make,
    },
    PassInfo {
        name: passes::call_inliner::NAME,
        summary: "replaces each call by the instructions of the computation it calls, then removes what became dead (XLA runs dce after it)",
        options: passes::call_inliner::OPTIONS,
        make: passes::call_inliner::make,
    },
    PassInfo {
        name: passes::convert_async_collectives_to_sync::NAME,
        summary: "turns start/done pairs with nothing but no-ops between them back into synchronous collectives (scheduled modules)",
        options: passes::convert_async_collectives_to_sync::OPTIONS,
        make: passes::convert_async_collectives_to_sync::make,
    },
    PassInfo {
        name: passes::dce::NAME,
        summary: "removes instructions whose values nothing uses and that have no side effect, and computations nothing calls",
        options: passes::dce::OPTIONS,
        make: passes::dce::make,
    },
    PassInfo {
        name: passes::flatten_call_graph::NAME,
        summary: "clones each computation that control flow calls from more than one place, so that every call site has its own",
        options: passes::flatten_call_graph::OPTIONS,
        make: passes::flatten_call_graph::make,
    },
    PassInfo {
        name: passes::hlo_memory_scheduler::NAME,
        summary: "gives every computation but fusion bodies an order that keeps peak memory low (XLA's list, DFS or post-order scheduler, by default the best of them)",
        options: passes::hlo_memory_scheduler::OPTIONS,
        make: passes::hlo_memory_scheduler::make,
    },
    PassInfo {
        name: passes::hlo_trivial_scheduler::NAME,
        summary: "gives every computation but fusion bodies the order a depth-first walk from its root visits it in",
        options: passes::hlo_trivial_scheduler::OPTIONS,
        make: passes::hlo_trivial_scheduler::make,
    },
    PassInfo {
        name: passes::latency_hiding_scheduler::NAME,
        summary: "reorders each computation's schedule so async collectives overlap compute (XLA's list scheduler, its estimators and config)",
        options: passes::latency_hiding_scheduler::OPTIONS,
        make: passes::latency_hiding_scheduler::make,
    },
    PassInfo {
        name: passes::legalize_scheduling_annotations::NAME,
        summary: "cleans up scheduling groups (_scheduling_group_id) before scheduling: drops unwanted and trivial annotations, fills or refuses gaps",
        options: passes::legalize_scheduling_annotations::OPTIONS,
        make: passes::legalize_scheduling_annotations::make,
    },
    PassInfo {
        name: passes::tuple_simplifier::NAME,
        summary: "folds get-tuple-element of a tuple into the element, and a tuple of every element of one value into the value",
        options: passes::tuple_simplifier::OPTIONS,
        make: passes::tuple_simplifier::make,
    },
    PassInfo {
        name: passes::while_loop_trip_count_annotator::NAME,
        summary: "writes the trip count, init and step, and induction variable XLA can work out into each while loop's backend config",
        options: passes::while_loop_trip_count_annotator::OPTIONS,
        make: passes::while_loop_trip_count_annotator::make,
    },
];

/// Every pass, sorted by name.
pub fn passes() -> &'static [PassInfo] {
    PASSES
}

/// The pass named `name`.
pub fn find(name: &str) -> Option<&'static PassInfo> {
    PASSES
        .binary_search_by(|info| info.name.cmp(name))
        .ok()
        .map(|at| &PASSES[at])
}

/// The pass `spec` names, with its options checked.
pub fn instantiate(spec: &PassSpec) -> Result<Box<dyn Pass>, PassError> {
    let Some(info) = find(&spec.name) else {
        let names: Vec<&str> = PASSES.iter().map(|info| info.name).collect();
        let mut error = PassError::new(format!("there is no pass '{}'", spec.name));
        error.hint = Some(match closest(&spec.name, &names) {
            Some(near) => format!("did you mean '{near}'? passes are: {}", names.join(", ")),
            None => format!("passes are: {}", names.join(", ")),
        });
        return Err(error);
    };
    let options = Options::checked(info.name, spec.options.clone(), info.options)?;
    Ok((info.make)(&options))
}

/// A mistake in a pipeline's text or in a pass it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineTextError {
    /// Where (1-based column in the text).
    pub column: usize,
    /// What is wrong.
    pub error: PassError,
}

/// The passes `text` names (see [`spec`]).
pub fn build(text: &str) -> Result<Vec<Box<dyn Pass>>, PipelineTextError> {
    let specs = spec::parse(text).map_err(|e| PipelineTextError {
        column: e.column,
        error: PassError::new(e.message),
    })?;
    specs
        .iter()
        .map(|spec| {
            instantiate(spec).map_err(|error| PipelineTextError {
                column: spec.at + 1,
                error,
            })
        })
        .collect()
}

/// The name in `names` nearest `wanted` by edit distance, when near enough
/// to be a likely typo.
fn closest<'n>(wanted: &str, names: &[&'n str]) -> Option<&'n str> {
    names
        .iter()
        .map(|name| (edit_distance(wanted, name), *name))
        .filter(|(distance, name)| *distance <= name.len().max(3) / 3)
        .min()
        .map(|(_, name)| name)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substituted = previous + usize::from(ca != cb);
            previous = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_names_match_the_passes() {
        assert!(PASSES.windows(2).all(|w| w[0].name < w[1].name));
        for info in PASSES {
            assert_eq!((info.make)(&Options::none()).name(), info.name);
            assert!(info.options.windows(2).all(|w| w[0].name != w[1].name));
        }
    }

    #[test]
    fn a_misspelt_pass_is_refused_with_the_nearest_name() {
        let error = build("dce,tuple-simplifer").err().expect("refused");
        assert_eq!(error.column, 5);
        assert_eq!(error.error.message, "there is no pass 'tuple-simplifer'");
        assert!(
            error.error.hint.as_deref().unwrap().starts_with(
                "did you mean 'tuple-simplifier'? passes are: async-collective-creator,"
            )
        );
        let error = build("dce{bogus=1}").err().expect("refused");
        assert_eq!(error.error.message, "dce has no option 'bogus'");
    }
}
