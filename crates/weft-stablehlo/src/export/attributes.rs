//! Attribute values in the forms StableHLO's ops carry them: `array<i64: …>`,
//! integer `dense<…>` matrices for replica groups and pairs, and the dialect
//! attributes (`#stablehlo.channel_handle<…>`, `#stablehlo<comparison_direction
//! …>`, …), which the op model keeps as their text.

use weft_ir::ElementType;
use weft_ir::literal::ArrayLiteral;

use crate::ir::attribute::{DenseArray, DenseArrayValues, DenseElements, DenseValues};
use crate::ir::{Attribute, ElementKind, Type};

/// `N : i64`.
pub(crate) fn i64(value: i64) -> Attribute {
    Attribute::i64(value)
}

/// `N : i32`.
pub(crate) fn i32(value: i64) -> Attribute {
    Attribute::Integer {
        value: i128::from(value),
        ty: Type::Element(ElementKind::int(32)),
    }
}

/// `array<i64: …>`.
pub(crate) fn array_i64(values: &[i64]) -> Attribute {
    Attribute::DenseArray(DenseArray {
        element: ElementKind::int(64),
        values: DenseArrayValues::Integers(values.to_vec()),
    })
}

/// `dense<[[…], …]> : tensor<RxCxi64>`; ragged rows are padded with `-1`, as
/// StableHLO pads replica groups (an empty list of groups, one group of every
/// device, is `0x0`).
pub(crate) fn dense_i64_matrix(rows: &[Vec<i64>]) -> Attribute {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let dims = vec![rows.len() as i64, columns as i64];
    let mut array = ArrayLiteral::zeros(ElementType::S64, &dims);
    for (r, row) in rows.iter().enumerate() {
        for c in 0..columns {
            array.set_int(
                r * columns + c,
                i128::from(row.get(c).copied().unwrap_or(-1)),
            );
        }
    }
    Attribute::DenseElements(Box::new(DenseElements {
        ty: Type::tensor(&dims, ElementKind::int(64)),
        values: DenseValues::Array(array),
    }))
}

/// `#stablehlo.channel_handle<handle = N, type = 1>`: XLA's importer marks a
/// collective's channel device-to-device (type 1).
pub(crate) fn channel_handle(channel: i64, kind: i64) -> Attribute {
    Attribute::Opaque(format!(
        "#stablehlo.channel_handle<handle = {channel}, type = {kind}>"
    ))
}

/// `#stablehlo<kind word>`, e.g. `#stablehlo<comparison_direction LT>`.
pub(crate) fn keyword(kind: &str, word: &str) -> Attribute {
    Attribute::Opaque(format!("#stablehlo<{kind} {word}>"))
}

/// `[a, b]` as dialect attributes print integer lists.
pub(crate) fn list(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("[{}]", items.join(", "))
}
