//! Gather and scatter dimension numbers in HLO text, in XLA's print order. They
//! are parsed from the instruction's attribute bag (see `family.rs`), name by
//! name.

use crate::attrs::{GatherAttrs, ScatterAttrs};
use crate::text::integers::push_int_list;

fn push_named_list(out: &mut String, name: &str, values: &[i64]) {
    out.push_str(", ");
    out.push_str(name);
    out.push('=');
    push_int_list(out, values);
}

impl GatherAttrs {
    /// Appends the attributes.
    pub(crate) fn print(&self, out: &mut String) {
        push_named_list(out, "offset_dims", &self.offset_dims);
        push_named_list(out, "collapsed_slice_dims", &self.collapsed_slice_dims);
        push_named_list(out, "start_index_map", &self.start_index_map);
        if !self.operand_batching_dims.is_empty() {
            push_named_list(out, "operand_batching_dims", &self.operand_batching_dims);
        }
        if !self.start_indices_batching_dims.is_empty() {
            push_named_list(
                out,
                "start_indices_batching_dims",
                &self.start_indices_batching_dims,
            );
        }
        out.push_str(", index_vector_dim=");
        out.push_str(&self.index_vector_dim.to_string());
        push_named_list(out, "slice_sizes", &self.slice_sizes);
        if self.indices_are_sorted {
            out.push_str(", indices_are_sorted=true");
        }
    }
}

impl ScatterAttrs {
    /// Appends the attributes (the `to_apply` follows from the callee).
    pub(crate) fn print(&self, out: &mut String) {
        push_named_list(out, "update_window_dims", &self.update_window_dims);
        push_named_list(out, "inserted_window_dims", &self.inserted_window_dims);
        push_named_list(
            out,
            "scatter_dims_to_operand_dims",
            &self.scatter_dims_to_operand_dims,
        );
        if !self.input_batching_dims.is_empty() {
            push_named_list(out, "input_batching_dims", &self.input_batching_dims);
        }
        if !self.scatter_indices_batching_dims.is_empty() {
            push_named_list(
                out,
                "scatter_indices_batching_dims",
                &self.scatter_indices_batching_dims,
            );
        }
        out.push_str(", index_vector_dim=");
        out.push_str(&self.index_vector_dim.to_string());
        if self.indices_are_sorted {
            out.push_str(", indices_are_sorted=true");
        }
        if self.unique_indices {
            out.push_str(", unique_indices=true");
        }
    }
}
