//! Dot algorithms: StableHLO's `#stablehlo.dot_algorithm<…>` and HLO's
//! `algorithm=dot_…` name the same thing, one by its parts (the precision
//! each operand is rounded to, the accumulation type, how many primitive
//! products), the other by XLA's name for the combination. Only the
//! combinations XLA knows (StableHLO's `getKnownDotAlgorithm`, XLA's
//! `PrecisionConfig::Algorithm`) have an HLO form; any other is an error
//! where it is read.

use crate::ir::dialect_attr::{Param, Structured};

/// The parts of a dot algorithm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DotAlgorithm {
    /// The type the left operand is rounded to (`bf16`, `tf32`, `f8E4M3FN`, …).
    pub lhs_precision_type: String,
    /// The type the right operand is rounded to.
    pub rhs_precision_type: String,
    /// The type products are summed in.
    pub accumulation_type: String,
    /// Products per multiplication (3, 6, 9 for the split-float algorithms).
    pub num_primitive_operations: i64,
    /// Whether accumulation may lose precision (the fast-accumulation FP8 one).
    pub allow_imprecise_accumulation: bool,
}

/// XLA's algorithms other than the FP8 ones: (lhs, rhs, accumulation,
/// primitive operations) → name.
const KNOWN: &[(&str, &str, &str, i64, &str)] = &[
    ("f16", "f16", "f16", 1, "dot_f16_f16_f16"),
    ("f16", "f16", "f32", 1, "dot_f16_f16_f32"),
    ("bf16", "bf16", "bf16", 1, "dot_bf16_bf16_bf16"),
    ("bf16", "bf16", "f32", 1, "dot_bf16_bf16_f32"),
    ("bf16", "bf16", "f32", 3, "dot_bf16_bf16_f32_x3"),
    ("bf16", "bf16", "f32", 6, "dot_bf16_bf16_f32_x6"),
    ("bf16", "bf16", "f32", 9, "dot_bf16_bf16_f32_x9"),
    ("tf32", "tf32", "f32", 1, "dot_tf32_tf32_f32"),
    ("tf32", "tf32", "f32", 3, "dot_tf32_tf32_f32_x3"),
    ("f32", "f32", "f32", 1, "dot_f32_f32_f32"),
    ("f64", "f64", "f64", 1, "dot_f64_f64_f64"),
];

/// The FP8 algorithms' names, exact and with fast accumulation.
const ANY_F8: &str = "dot_any_f8_any_f8_f32";
const ANY_F8_FAST: &str = "dot_any_f8_any_f8_f32_fast_accum";

/// Whether `name` is one of the 8-bit float types the FP8 algorithms take.
fn is_f8(name: &str) -> bool {
    matches!(
        name,
        "f8E3M4" | "f8E4M3" | "f8E4M3FN" | "f8E5M2" | "f8E4M3FNUZ" | "f8E4M3B11FNUZ" | "f8E5M2FNUZ"
    )
}

impl DotAlgorithm {
    /// Reads `#stablehlo.dot_algorithm<…>`.
    pub fn read(attribute: &Structured) -> Result<DotAlgorithm, String> {
        let word = |key: &str| match attribute.get(key) {
            Some(Param::Word(word)) => Ok(word.clone()),
            _ => Err(format!("the dot algorithm has no type '{key}'")),
        };
        let integer = |key: &str| {
            attribute
                .int(key)
                .ok_or_else(|| format!("the dot algorithm has no integer '{key}'"))
        };
        for count in ["lhs_component_count", "rhs_component_count"] {
            if integer(count)? != 1 {
                return Err(format!(
                    "{count} = {} has no HLO form: XLA's dot algorithms take one component",
                    integer(count)?
                ));
            }
        }
        Ok(DotAlgorithm {
            lhs_precision_type: word("lhs_precision_type")?,
            rhs_precision_type: word("rhs_precision_type")?,
            accumulation_type: word("accumulation_type")?,
            num_primitive_operations: integer("num_primitive_operations")?,
            allow_imprecise_accumulation: matches!(
                attribute.get("allow_imprecise_accumulation"),
                Some(Param::Bool(true))
            ),
        })
    }

    /// XLA's name of this algorithm, as HLO's `algorithm=` writes it.
    pub fn hlo_name(&self) -> Result<&'static str, String> {
        let parts = (
            self.lhs_precision_type.as_str(),
            self.rhs_precision_type.as_str(),
            self.accumulation_type.as_str(),
            self.num_primitive_operations,
        );
        if is_f8(parts.0) && is_f8(parts.1) && parts.2 == "f32" && parts.3 == 1 {
            return Ok(if self.allow_imprecise_accumulation {
                ANY_F8_FAST
            } else {
                ANY_F8
            });
        }
        KNOWN
            .iter()
            .find(|known| {
                !self.allow_imprecise_accumulation && (known.0, known.1, known.2, known.3) == parts
            })
            .map(|known| known.4)
            .ok_or_else(|| {
                format!(
                    "the dot algorithm ({}, {}, accumulating in {}, {} primitive operation(s){}) is not one XLA knows",
                    parts.0,
                    parts.1,
                    parts.2,
                    parts.3,
                    if self.allow_imprecise_accumulation { ", imprecise accumulation" } else { "" }
                )
            })
    }

    /// The parts of XLA's algorithm `name`; an FP8 algorithm takes the
    /// operands' element types `lhs` and `rhs`.
    pub fn from_hlo_name(name: &str, lhs: &str, rhs: &str) -> Option<DotAlgorithm> {
        let algorithm = |lhs: &str, rhs: &str, accumulation: &str, operations, imprecise| {
            Some(DotAlgorithm {
                lhs_precision_type: lhs.to_string(),
                rhs_precision_type: rhs.to_string(),
                accumulation_type: accumulation.to_string(),
                num_primitive_operations: operations,
                allow_imprecise_accumulation: imprecise,
            })
        };
        match name {
            ANY_F8 => algorithm(lhs, rhs, "f32", 1, false),
            ANY_F8_FAST => algorithm(lhs, rhs, "f32", 1, true),
            _ => {
                let known = KNOWN.iter().find(|known| known.4 == name)?;
                algorithm(known.0, known.1, known.2, known.3, false)
            }
        }
    }

    /// The attribute's text, `#stablehlo.dot_algorithm<…>`.
    pub fn to_text(&self) -> String {
        format!(
            "#stablehlo.dot_algorithm<lhs_precision_type = {}, rhs_precision_type = {}, accumulation_type = {}, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = {}, allow_imprecise_accumulation = {}>",
            self.lhs_precision_type,
            self.rhs_precision_type,
            self.accumulation_type,
            self.num_primitive_operations,
            self.allow_imprecise_accumulation
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Attribute;

    #[test]
    fn every_name_is_one_hlo_reads() {
        let names = KNOWN
            .iter()
            .map(|known| known.4)
            .chain([ANY_F8, ANY_F8_FAST]);
        for name in names {
            assert!(
                weft_ir::attrs::PRECISION_ALGORITHMS.contains(&name),
                "{name}"
            );
        }
    }

    fn read(text: &str) -> Result<DotAlgorithm, String> {
        let attribute = Attribute::Opaque(text.to_string());
        DotAlgorithm::read(&Structured::read(Some(&attribute), "stablehlo.dot_algorithm").unwrap())
    }

    #[test]
    fn known_combinations_have_xla_names_both_ways() {
        let tf32 = read("#stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false>").unwrap();
        assert_eq!(tf32.hlo_name(), Ok("dot_tf32_tf32_f32_x3"));
        assert_eq!(
            DotAlgorithm::from_hlo_name("dot_tf32_tf32_f32_x3", "f32", "f32"),
            Some(tf32.clone())
        );
        assert_eq!(read(&tf32.to_text()), Ok(tf32));
        let f8 = read("#stablehlo.dot_algorithm<lhs_precision_type = f8E4M3FN, rhs_precision_type = f8E5M2, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = true>").unwrap();
        assert_eq!(f8.hlo_name(), Ok("dot_any_f8_any_f8_f32_fast_accum"));
    }

    #[test]
    fn unknown_combinations_are_refused() {
        let odd = read("#stablehlo.dot_algorithm<lhs_precision_type = bf16, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>").unwrap();
        assert!(odd.hlo_name().unwrap_err().contains("not one XLA knows"));
        let components = read(
            "#stablehlo.dot_algorithm<lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 2, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>",
        );
        assert!(components.unwrap_err().contains("lhs_component_count = 2"));
    }
}
