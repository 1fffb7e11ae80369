//! HLO shapes as MLIR types: an array is a ranked `tensor` (layouts are not
//! carried over; a dynamic dimension is `?`), a tuple `tuple<…>`, the token
//! `!stablehlo.token`.

use weft_ir::shape::ShapeData;
use weft_ir::{ElementType, Instr, Shape};

use super::{ExportResult, Exporter};
use crate::ir::{Dim, ElementKind, FloatKind, Signedness, TensorType, Type};

impl Exporter<'_> {
    /// The type of a value of `shape` (`instr` names the culprit in errors).
    pub(crate) fn ty(&self, instr: Instr, shape: Shape) -> ExportResult<Type> {
        match self.module.shapes.get(shape) {
            ShapeData::Array(array) => {
                let element = element_kind(array.elem).ok_or_else(|| {
                    self.error(
                        instr,
                        format!("{:?} has no StableHLO element type", array.elem),
                    )
                })?;
                let dims = array
                    .dims
                    .iter()
                    .enumerate()
                    .map(|(d, &size)| {
                        if array.dynamic.get(d).copied().unwrap_or(false) {
                            Dim::Dynamic
                        } else {
                            Dim::Static(size)
                        }
                    })
                    .collect();
                Ok(Type::Tensor(TensorType {
                    dims: Some(dims),
                    element,
                    encoding: None,
                }))
            }
            ShapeData::Tuple(elements) => Ok(Type::Tuple(
                elements
                    .iter()
                    .map(|&e| self.ty(instr, e))
                    .collect::<ExportResult<_>>()?,
            )),
            ShapeData::Token => Ok(Type::Token),
            ShapeData::Opaque | ShapeData::Buffer(_) => {
                Err(self.error(instr, "opaque and buffer shapes have no StableHLO type"))
            }
        }
    }

    /// The element type of an array shape.
    pub(crate) fn element_of(&self, instr: Instr, shape: Shape) -> ExportResult<ElementType> {
        self.module
            .shapes
            .as_array(shape)
            .map(|a| a.elem)
            .ok_or_else(|| self.error(instr, "expected an array shape"))
    }
}

/// The MLIR element type that `element` is (the inverse of
/// [`ElementKind::hlo`]).
pub(crate) fn element_kind(element: ElementType) -> Option<ElementKind> {
    use ElementType as E;
    let integer = |width, signedness| ElementKind::Integer { width, signedness };
    Some(match element {
        E::Pred => ElementKind::int(1),
        E::S2 => integer(2, Signedness::Signless),
        E::S4 => integer(4, Signedness::Signless),
        E::S8 => integer(8, Signedness::Signless),
        E::S16 => integer(16, Signedness::Signless),
        E::S32 => integer(32, Signedness::Signless),
        E::S64 => integer(64, Signedness::Signless),
        E::U2 => integer(2, Signedness::Unsigned),
        E::U4 => integer(4, Signedness::Unsigned),
        E::U8 => integer(8, Signedness::Unsigned),
        E::U16 => integer(16, Signedness::Unsigned),
        E::U32 => integer(32, Signedness::Unsigned),
        E::U64 => integer(64, Signedness::Unsigned),
        E::C64 => ElementKind::Complex(FloatKind::F32),
        E::C128 => ElementKind::Complex(FloatKind::F64),
        other => ElementKind::Float(FloatKind::ALL.iter().copied().find(|k| k.hlo() == other)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_element_type_the_front_end_reads_comes_back() {
        for &element in ElementType::ALL {
            if let Some(kind) = element_kind(element) {
                assert_eq!(kind.hlo(), Some(element), "{element:?}");
            }
        }
        assert!(element_kind(ElementType::F32).is_some());
        assert!(element_kind(ElementType::Bf16).is_some());
        assert!(element_kind(ElementType::U4).is_some());
    }
}
