//! MLIR types to HLO shapes: a static tensor becomes an array with the default
//! layout, `tuple<…>` a tuple, `!stablehlo.token` the token; a quantized tensor
//! is its storage type (the lowering expands quantize and dequantize into
//! arithmetic on it).

use weft_ir::{ElementType, Shape};

use super::Lowering;
use crate::ir::{Dim, ElementKind, Type};

impl Lowering<'_> {
    /// The HLO shape of `ty`, or why there is none.
    pub(crate) fn shape(&mut self, ty: &Type) -> Result<Shape, String> {
        match ty {
            Type::Tensor(tensor) => {
                let Some(dims) = &tensor.dims else {
                    return Err("unranked tensors have no HLO shape".into());
                };
                let dims = dims
                    .iter()
                    .map(|d| match d {
                        Dim::Static(size) => Ok(*size),
                        Dim::Dynamic => Err(
                            "dynamic dimensions are not supported by the lowering (give the tensor a static shape)"
                                .to_string(),
                        ),
                    })
                    .collect::<Result<Vec<i64>, String>>()?;
                let element = element_type(&tensor.element)?;
                Ok(self.module.shapes.array_with_default_layout(element, &dims))
            }
            Type::Element(element) => {
                let element = element_type(element)?;
                Ok(self.module.shapes.array_with_default_layout(element, &[]))
            }
            Type::Token => Ok(self.module.shapes.token()),
            Type::Tuple(elements) => {
                let shapes = elements
                    .iter()
                    .map(|e| self.shape(e))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(self.module.shapes.tuple(&shapes))
            }
            Type::Future(_) => Err("a future has no HLO shape of its own".into()),
            Type::Function(_) | Type::None | Type::Opaque(_) => {
                Err(format!("type {ty:?} has no HLO shape"))
            }
        }
    }

    /// The dimensions of an array shape (none for anything else).
    pub(crate) fn array_dims(&self, shape: Shape) -> Vec<i64> {
        self.module
            .shapes
            .as_array(shape)
            .map(|array| array.dims.to_vec())
            .unwrap_or_default()
    }
}

/// The HLO element type of `element`.
pub(crate) fn element_type(element: &ElementKind) -> Result<ElementType, String> {
    element
        .hlo()
        .ok_or_else(|| "this element type has no HLO equivalent".to_string())
}
