//! `convolution` with XLA's general dimension numbers: strides, padding
//! (negative too), base (lhs) and window (rhs) dilation, window reversal,
//! feature groups and batch groups, computed directly from the definition
//! (each output element is a sum over its window and input features) in
//! the arithmetic domain (`f64` for floats; XLA sums in the element type, so
//! float results agree to the type's precision, not bit for bit).

use weft_ir::ElementType;
use weft_ir::attrs::{ConvolutionAttrs, WindowDim};

use crate::numbers::{Numbers, convert_numbers, decode, encode};
use crate::tensor::{Tensor, element_count, strides};

pub(crate) fn convolution(
    input: &Tensor,
    kernel: &Tensor,
    attrs: &ConvolutionAttrs,
    result_elem: ElementType,
    result_dims: &[i64],
) -> Result<Tensor, String> {
    let dims = &attrs.dims;
    let spatial = dims.input_spatial.len();
    let window: Vec<WindowDim> = match &attrs.window {
        Some(window) => window.dims.to_vec(),
        None => dims
            .kernel_spatial
            .iter()
            .map(|&d| WindowDim::new(kernel.dims[d as usize]))
            .collect(),
    };
    if window.len() != spatial {
        return Err("the window and the convolution's spatial dimensions differ in number".into());
    }
    let as_floats = |t: &Tensor| -> Vec<f64> {
        match convert_numbers(&decode(t), ElementType::F64) {
            Numbers::Float(v) => v,
            _ => Vec::new(),
        }
    };
    let integer = result_elem.is_integer();
    let (x, k) = (as_floats(input), as_floats(kernel));
    let (input_strides, kernel_strides, output_strides) = (
        strides(&input.dims),
        strides(&kernel.dims),
        strides(result_dims),
    );
    let groups = attrs.feature_group_count.max(1);
    let batch_groups = attrs.batch_group_count.max(1);
    let input_features = input.dims[dims.input_feature as usize];
    let output_features = result_dims[dims.output_feature as usize];
    let features_per_group = input_features / groups;
    let outputs_per_group = (output_features / groups).max(1);
    let outputs_per_batch_group = (output_features / batch_groups).max(1);
    let batch_per_group = input.dims[dims.input_batch as usize] / batch_groups;
    let kernel_window: Vec<i64> = dims
        .kernel_spatial
        .iter()
        .map(|&d| kernel.dims[d as usize])
        .collect();
    let mut out = vec![0f64; element_count(result_dims)];
    let mut output_index = vec![0i64; result_dims.len()];
    for (linear, value) in out.iter_mut().enumerate() {
        for (d, slot) in output_index.iter_mut().enumerate() {
            *slot = (linear / output_strides[d]) as i64 % result_dims[d].max(1);
        }
        let batch = output_index[dims.output_batch as usize];
        let feature = output_index[dims.output_feature as usize];
        let group = feature / outputs_per_group;
        let batch_group = feature / outputs_per_batch_group;
        let input_batch = batch_group * batch_per_group + batch;
        let mut sum = 0f64;
        let mut window_index = vec![0i64; spatial];
        'window: loop {
            // The input position of this window element, if it lands on a
            // real (not dilation-inserted, not padding) input element.
            let mut input_offset = input_batch as usize * input_strides[dims.input_batch as usize];
            let mut kernel_offset =
                feature as usize * kernel_strides[dims.kernel_output_feature as usize];
            let mut inside = true;
            for s in 0..spatial {
                let w = &window[s];
                let o = output_index[dims.output_spatial[s] as usize];
                let position = o * w.stride + window_index[s] * w.window_dilation - w.padding_low;
                let base = w.base_dilation.max(1);
                let size = input.dims[dims.input_spatial[s] as usize];
                if position < 0 || position % base != 0 || position / base >= size {
                    inside = false;
                    break;
                }
                input_offset +=
                    (position / base) as usize * input_strides[dims.input_spatial[s] as usize];
                let kernel_position = if w.reversal {
                    kernel_window[s] - 1 - window_index[s]
                } else {
                    window_index[s]
                };
                kernel_offset +=
                    kernel_position as usize * kernel_strides[dims.kernel_spatial[s] as usize];
            }
            if inside {
                for i in 0..features_per_group {
                    let input_feature = group * features_per_group + i;
                    let a = x[input_offset
                        + input_feature as usize * input_strides[dims.input_feature as usize]];
                    let b = k[kernel_offset
                        + i as usize * kernel_strides[dims.kernel_input_feature as usize]];
                    sum += a * b;
                }
            }
            // Next window element (row-major over the spatial dimensions).
            let mut s = spatial;
            loop {
                if s == 0 {
                    break 'window;
                }
                s -= 1;
                window_index[s] += 1;
                if window_index[s] < kernel_window[s] {
                    break;
                }
                window_index[s] = 0;
            }
        }
        *value = sum;
    }
    let numbers = if integer {
        Numbers::Signed(out.iter().map(|&v| v as i64).collect())
    } else {
        Numbers::Float(out)
    };
    Ok(encode(result_elem, result_dims, &numbers))
}
