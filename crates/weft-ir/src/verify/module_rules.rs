//! Module-level rules: names are unique (computations among computations,
//! instructions module-wide, as XLA's printer and parser rely on), there is an
//! entry computation, parameters are numbered 0..n without gaps, and the entry
//! computation layout agrees with the entry computation.

use rustc_hash::FxHashMap;

use crate::attrs::Attrs;
use crate::module::Instr;
use crate::verify::checker::Checker;
use crate::verify::error::Rule;

pub(super) fn check(cx: &mut Checker) {
    check_names(cx);
    check_parameters(cx);
    check_entry(cx);
}

fn check_names(cx: &mut Checker) {
    let m = cx.m;
    let mut comps = FxHashMap::default();
    for comp in cx.computations() {
        let name = m.comps[comp].name.as_str();
        if let Some(first) = comps.insert(name, comp) {
            cx.report_comp(
                Rule::UniqueNames,
                comp,
                format!("computation name %{name} is used twice"),
            )
            .with_hint(format!(
                "the first computation with this name is #{}",
                crate::entity::EntityRef::index(first)
            ));
        }
    }
    let mut instrs: FxHashMap<&str, Instr> =
        FxHashMap::with_capacity_and_hasher(m.instrs.len(), Default::default());
    for comp in cx.computations() {
        for &instr in cx.body(comp) {
            let name = m.instrs[instr].name.as_str();
            if let Some(first) = instrs.insert(name, instr) {
                let other = &m.comps[m.parent(first)].name;
                cx.report(
                    Rule::UniqueNames,
                    instr,
                    format!("instruction name %{name} is used twice in the module"),
                )
                .with_hint(format!(
                    "another instruction of computation %{other} has this name"
                ));
            }
        }
    }
}

fn check_parameters(cx: &mut Checker) {
    let m = cx.m;
    for comp in cx.computations() {
        let data = &m.comps[comp];
        let mut count = 0;
        for &instr in &data.body {
            let Attrs::Parameter(parameter) = &m.instrs[instr].attrs else {
                continue;
            };
            count += 1;
            let listed = usize::try_from(parameter.number)
                .ok()
                .and_then(|n| data.params.get(n));
            if listed != Some(&instr) {
                cx.report(
                    Rule::Computation,
                    instr,
                    format!(
                        "parameter({}) is not parameter {} of computation %{}",
                        parameter.number, parameter.number, data.name
                    ),
                )
                .with_hint("parameter numbers must be unique and run 0, 1, 2, … without gaps");
            }
        }
        if count != data.params.len() {
            cx.report_comp(
                Rule::Computation,
                comp,
                format!(
                    "computation %{} lists {} parameters but has {count} parameter instructions",
                    data.name,
                    data.params.len()
                ),
            );
        }
    }
}

fn check_entry(cx: &mut Checker) {
    let m = cx.m;
    let Some(entry) = m.entry else {
        if !m.comp_order.is_empty() {
            cx.report_module(Rule::Computation, "the module has no entry computation")
                .with_hint("mark one computation with ENTRY");
        }
        return;
    };
    if !m.comp_order.contains(&entry) {
        cx.report_module(
            Rule::Computation,
            "the entry computation is not one of the module's computations",
        );
        return;
    }
    let Some(layout) = &m.config.entry_computation_layout else {
        return;
    };
    let params = cx.param_shapes(entry);
    let name = &m.comps[entry].name;
    if layout.parameters.len() != params.len() {
        cx.report_comp(
            Rule::Computation,
            entry,
            format!(
                "entry_computation_layout has {} parameters, but the entry computation %{name} has {}",
                layout.parameters.len(),
                params.len()
            ),
        );
        return;
    }
    for (i, (&declared, &actual)) in layout.parameters.iter().zip(&params).enumerate() {
        if !crate::shape_util::compatible(&m.shapes, declared, actual) {
            let (d, a) = (cx.text(declared), cx.text(actual));
            cx.report_comp(
                Rule::Computation,
                entry,
                format!("entry_computation_layout parameter {i} is {d}, but the entry computation's parameter {i} is {a}"),
            );
        }
    }
    if let Some(root) = cx.root_shape(entry)
        && !crate::shape_util::compatible(&m.shapes, layout.result, root)
    {
        let (d, a) = (cx.text(layout.result), cx.text(root));
        cx.report_comp(
            Rule::Computation,
            entry,
            format!(
                "entry_computation_layout result is {d}, but the entry computation returns {a}"
            ),
        );
    }
}
