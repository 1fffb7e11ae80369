//! Scheduling annotations: the `_scheduling_group_id` frontend attribute
//! that ties instructions into one scheduling group (XLA's
//! `scheduling_annotations_util`).
//!
//! The value is `GROUP`, `GROUP:ITERATION`, `:ITERATION` or `noop`:
//!
//! - `GROUP` is a non-negative integer. Every instruction carrying the same
//!   group is scheduled as one unit: an async start, its done and the
//!   compute annotated with them, so the compute lands inside the
//!   collective's window.
//! - `ITERATION` is a (possibly negative) integer saying which loop
//!   iteration the instruction belongs to after collective pipelining.
//! - `noop` marks an instruction as belonging to no group; it reads as no
//!   annotation at all.
//!
//! Reading a malformed value is an error naming the instruction, as XLA's
//! `GetSchedulingAnnotation` fails; [`set`] refuses the same values.

use std::fmt;

use weft_ir::{InstrData, Module};

/// The frontend attribute's key.
pub const ATTRIBUTE: &str = "_scheduling_group_id";

/// The value that marks an instruction as in no group.
pub const NO_OP_GROUP: &str = "noop";

/// A parsed `_scheduling_group_id`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Annotation {
    /// The scheduling group.
    pub group: Option<i64>,
    /// The loop iteration the instruction belongs to.
    pub iteration: Option<i64>,
}

impl Annotation {
    /// An annotation of group `group` alone.
    pub fn group(group: i64) -> Annotation {
        Annotation {
            group: Some(group),
            iteration: None,
        }
    }
}

impl fmt::Display for Annotation {
    /// XLA's `Annotation::ToString`: `G:I`, `G`, `:I` or nothing.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.group, self.iteration) {
            (Some(group), Some(iteration)) => write!(f, "{group}:{iteration}"),
            (Some(group), None) => write!(f, "{group}"),
            (None, Some(iteration)) => write!(f, ":{iteration}"),
            (None, None) => Ok(()),
        }
    }
}

/// The raw attribute text on `data`, if any.
pub fn raw(data: &InstrData) -> Option<&str> {
    data.common()
        .frontend_attributes
        .as_ref()
        .and_then(|attributes| attributes.get(ATTRIBUTE))
}

/// Whether `data` carries the attribute at all (`noop` included).
pub fn has(data: &InstrData) -> bool {
    raw(data).is_some()
}

/// Checks an annotation's text: at most two `:`-separated fields, each empty
/// or an integer, the group non-negative.
pub fn check(name: &str, text: &str) -> Result<(), String> {
    if text == NO_OP_GROUP {
        return Ok(());
    }
    let fields: Vec<&str> = text.split(':').collect();
    if fields.len() > 2 {
        return Err(format!(
            "instruction '{name}' has more than 2 scheduling annotation fields: '{text}'"
        ));
    }
    let integer = |field: &str, what: &str, non_negative: bool| -> Result<(), String> {
        if field.is_empty() {
            return Ok(());
        }
        match field.parse::<i64>() {
            Err(_) => Err(format!(
                "instruction '{name}' has a non-integer scheduling annotation {what}: '{text}'"
            )),
            Ok(value) if non_negative && value < 0 => Err(format!(
                "instruction '{name}' has a negative scheduling annotation {what}: '{text}'"
            )),
            Ok(_) => Ok(()),
        }
    };
    integer(fields[0], "group id", true)?;
    if let Some(iteration) = fields.get(1) {
        integer(iteration, "iteration id", false)?;
    }
    Ok(())
}

/// The annotation on `data`: `None` when it has none or is `noop`.
pub fn get(data: &InstrData) -> Result<Option<Annotation>, String> {
    let Some(text) = raw(data) else {
        return Ok(None);
    };
    if text == NO_OP_GROUP {
        return Ok(None);
    }
    check(&data.name, text)?;
    let mut fields = text.split(':');
    let parse = |field: Option<&str>| field.filter(|f| !f.is_empty()).map(|f| f.parse().unwrap());
    let group = parse(fields.next());
    let iteration = parse(fields.next());
    Ok(Some(Annotation { group, iteration }))
}

/// The group of `data`'s annotation, if any.
pub fn group(data: &InstrData) -> Result<Option<i64>, String> {
    Ok(get(data)?.and_then(|annotation| annotation.group))
}

/// Sets `data`'s annotation to `text`, checked first.
pub fn set_text(data: &mut InstrData, text: &str) -> Result<(), String> {
    check(&data.name, text)?;
    data.common_mut()
        .frontend_attributes
        .get_or_insert_with(Default::default)
        .set(ATTRIBUTE, text);
    Ok(())
}

/// Sets `data`'s annotation.
pub fn set(data: &mut InstrData, annotation: Annotation) {
    set_text(data, &annotation.to_string()).expect("a built annotation is well formed");
}

/// Removes `data`'s annotation; whether it had one.
pub fn remove(data: &mut InstrData) -> bool {
    let Some(common) = data.common.as_deref_mut() else {
        return false;
    };
    let Some(attributes) = common.frontend_attributes.as_mut() else {
        return false;
    };
    let before = attributes.entries.len();
    attributes.entries.retain(|(key, _)| key != ATTRIBUTE);
    let removed = attributes.entries.len() != before;
    if attributes.entries.is_empty() {
        common.frontend_attributes = None;
    }
    removed
}

/// Removes the iteration of `data`'s annotation (the whole annotation when
/// it has no group); whether anything changed.
pub fn remove_iteration(data: &mut InstrData) -> Result<bool, String> {
    let Some(mut annotation) = get(data)? else {
        return Ok(false);
    };
    if annotation.iteration.is_none() {
        return Ok(false);
    }
    if annotation.group.is_none() {
        return Ok(remove(data));
    }
    annotation.iteration = None;
    set(data, annotation);
    Ok(true)
}

/// One more than the largest group in `module` (0 when there is none):
/// XLA's `NextSchedulingGroupId`, for passes that make new groups.
pub fn next_group(module: &Module) -> Result<i64, String> {
    let mut largest = 0;
    for comp in module.computations() {
        for &instr in module.comp(comp).body() {
            if let Some(group) = group(module.instr(instr))? {
                largest = largest.max(group);
            }
        }
    }
    Ok(largest + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data_with(text: &str) -> InstrData {
        let module = weft_ir::text::parse(&format!(
            "HloModule m\n\nENTRY e {{\n  ROOT p = f32[] parameter(0), frontend_attributes={{_scheduling_group_id=\"{text}\"}}\n}}\n"
        ))
        .unwrap();
        let entry = module.entry().unwrap();
        module.instr(module.comp(entry).root().unwrap()).clone()
    }

    #[test]
    fn annotations_read_every_form() {
        assert_eq!(get(&data_with("3")).unwrap(), Some(Annotation::group(3)));
        assert_eq!(
            get(&data_with("3:-1")).unwrap(),
            Some(Annotation {
                group: Some(3),
                iteration: Some(-1)
            })
        );
        assert_eq!(
            get(&data_with(":2")).unwrap(),
            Some(Annotation {
                group: None,
                iteration: Some(2)
            })
        );
        assert_eq!(get(&data_with("noop")).unwrap(), None);
        assert!(has(&data_with("noop")));
    }

    #[test]
    fn malformed_annotations_are_errors_naming_the_instruction() {
        assert!(get(&data_with("x")).unwrap_err().contains("non-integer"));
        assert!(get(&data_with("-1")).unwrap_err().contains("negative"));
        assert!(
            get(&data_with("1:2:3"))
                .unwrap_err()
                .contains("more than 2")
        );
        assert!(get(&data_with("1:y")).unwrap_err().contains("'p'"));
    }

    #[test]
    fn annotations_are_written_back_as_xla_prints_them() {
        let mut data = data_with("4:1");
        assert!(remove_iteration(&mut data).unwrap());
        assert_eq!(raw(&data), Some("4"));
        set(&mut data, Annotation::group(9));
        assert_eq!(group(&data).unwrap(), Some(9));
        assert!(remove(&mut data));
        assert!(!has(&data));
        assert!(data.common().frontend_attributes.is_none());
    }
}
