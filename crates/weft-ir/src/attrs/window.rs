//! Windows, padding configs and slice ranges (their text form is in
//! `text/attrs/window.rs`).

/// One dimension of a window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowDim {
    /// Window size.
    pub size: i64,
    /// Stride (default 1).
    pub stride: i64,
    /// Low padding (default 0).
    pub padding_low: i64,
    /// High padding (default 0).
    pub padding_high: i64,
    /// Base (`lhs_dilate`) dilation (default 1).
    pub base_dilation: i64,
    /// Window (`rhs_dilate`) dilation (default 1).
    pub window_dilation: i64,
    /// Whether the window is reversed (`rhs_reversal`).
    pub reversal: bool,
}

impl WindowDim {
    /// A dimension of `size` with every other field at its default.
    pub fn new(size: i64) -> WindowDim {
        WindowDim {
            size,
            stride: 1,
            padding_low: 0,
            padding_high: 0,
            base_dilation: 1,
            window_dilation: 1,
            reversal: false,
        }
    }
}

/// A window: one entry per spatial dimension.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Window {
    /// The dimensions.
    pub dims: Box<[WindowDim]>,
}

/// One dimension of a padding config.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PaddingDim {
    /// Padding before the first element (may be negative).
    pub low: i64,
    /// Padding after the last element (may be negative).
    pub high: i64,
    /// Padding between elements.
    pub interior: i64,
}

impl PaddingDim {
    /// The size of a dimension of `size` elements once padded:
    /// `low + high + size + (size - 1) * interior`; `None` when that
    /// overflows. (Negative results are the caller's to reject.)
    pub fn padded_size(&self, size: i64) -> Option<i64> {
        let interior = (size - 1).max(0).checked_mul(self.interior)?;
        size.checked_add(self.low)?
            .checked_add(self.high)?
            .checked_add(interior)
    }
}

/// A `pad` instruction's padding, one entry per dimension.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PaddingConfig {
    /// The dimensions.
    pub dims: Box<[PaddingDim]>,
}

/// One dimension of a `slice`: `[start:limit:stride]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceRange {
    /// First index.
    pub start: i64,
    /// One past the last index.
    pub limit: i64,
    /// Step.
    pub stride: i64,
}
