//! NumPy broadcasting for the `chlo.broadcast_*` ops, and `chlo.constant_like`.
//!
//! An operand of rank `r` broadcast to a result of rank `R` maps its
//! dimension `i` to result dimension `R - r + i` (prefix padding); a size-1
//! dimension stretches to the result's size. XLA's legalization accepts an
//! explicit `broadcast_dimensions` only when it is that mapping (it reports
//! anything else as unsupported), and so does weft.

use weft_ir::attrs::Attrs;
use weft_ir::literal::Literal;
use weft_ir::{Comp, Instr, Opcode, Shape};

use crate::ir::{Attribute, Op};
use crate::lower::ops::dense_literal;
use crate::lower::{LowerResult, Lowering};

impl Lowering<'_> {
    /// `operands`, each broadcast to the dimensions of `result` (keeping its
    /// element type).
    pub(super) fn broadcast_operands(
        &mut self,
        comp: Comp,
        op: Op,
        operands: &[Instr],
        result: Shape,
        name: &str,
    ) -> LowerResult<Vec<Instr>> {
        let target = self.array_dims(result);
        let explicit = self.optional_ints(op, "broadcast_dimensions")?;
        let mut broadcast = Vec::with_capacity(operands.len());
        for &operand in operands {
            let dims = self.array_dims(self.module.shape_of(operand));
            if dims.len() > target.len() {
                return Err(self.error(op, "an operand has a higher rank than the result"));
            }
            let offset = (target.len() - dims.len()) as i64;
            let mapping: Vec<i64> = (0..dims.len() as i64).map(|i| i + offset).collect();
            if let Some(explicit) = &explicit
                && dims.len() < target.len()
                && explicit != &mapping
            {
                return Err(self.error(
                    op,
                    "broadcast_dimensions other than NumPy's trailing alignment are not supported (as in XLA's legalization)",
                ));
            }
            broadcast.push(self.stretch(comp, op, operand, &dims, &target, &mapping, name)?);
        }
        Ok(broadcast)
    }

    /// `operand` (dimensions `dims`, dimension `i` at `mapping[i]`) broadcast
    /// to `target`: size-1 dimensions that stretch are reshaped away first,
    /// as HLO's `broadcast` keeps the sizes it maps.
    #[allow(clippy::too_many_arguments)]
    fn stretch(
        &mut self,
        comp: Comp,
        op: Op,
        operand: Instr,
        dims: &[i64],
        target: &[i64],
        mapping: &[i64],
        name: &str,
    ) -> LowerResult<Instr> {
        if dims == target {
            return Ok(operand);
        }
        let element = self.element_of(operand);
        let mut kept = Vec::new();
        let mut kept_mapping = Vec::new();
        for (&size, &to) in dims.iter().zip(mapping) {
            let wanted = target[to as usize];
            if size == wanted {
                kept.push(size);
                kept_mapping.push(to);
            } else if size != 1 {
                return Err(self.error(
                    op,
                    format!("cannot broadcast dimension of size {size} to {wanted}"),
                ));
            }
        }
        let mut source = operand;
        if kept.len() != dims.len() {
            let reshaped = self.module.shapes.array_with_default_layout(element, &kept);
            source = self.emit(
                comp,
                name,
                Opcode::Reshape,
                reshaped,
                vec![operand],
                Attrs::plain(),
            );
        }
        let shape = self
            .module
            .shapes
            .array_with_default_layout(element, target);
        Ok(self.emit(
            comp,
            name,
            Opcode::Broadcast,
            shape,
            vec![source],
            Attrs::Dimensions {
                dimensions: kept_mapping.into(),
            },
        ))
    }

    /// `chlo.constant_like`: the scalar `value` broadcast to the result.
    pub(crate) fn constant_like(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let shape = self.result_shape(op)?;
        let element = self.element_of_shape(shape);
        let name = self.name_for(op, "constant_like");
        let literal = match self.body.attribute(op, "value") {
            Some(Attribute::DenseElements(dense)) => dense_literal(dense).ok(),
            Some(Attribute::Float { value, .. }) => {
                let mut array = weft_ir::literal::ArrayLiteral::zeros(element, &[]);
                array.set_float(0, *value);
                Some(Literal::Array(array))
            }
            Some(Attribute::Integer { value, .. }) => {
                let mut array = weft_ir::literal::ArrayLiteral::zeros(element, &[]);
                array.set_int(0, *value);
                Some(Literal::Array(array))
            }
            _ => None,
        };
        let Some(Literal::Array(array)) = literal else {
            return Err(self.error(op, "constant_like needs a scalar number as its value"));
        };
        if array.len() != 1 || array.elem != element {
            return Err(self.error(
                op,
                "constant_like's value must be one number of the result's element type",
            ));
        }
        let scalar_shape = self.module.shapes.array_with_default_layout(element, &[]);
        let scalar = self.emit(
            comp,
            &name,
            Opcode::Constant,
            scalar_shape,
            Vec::new(),
            Attrs::Constant(Box::new(Literal::Array(weft_ir::literal::ArrayLiteral {
                dims: Vec::new(),
                ..array
            }))),
        );
        let result = self.broadcast_scalar(comp, scalar, shape, &name);
        self.bind_results(comp, op, result);
        Ok(())
    }

    fn element_of_shape(&self, shape: Shape) -> weft_ir::ElementType {
        self.module
            .shapes
            .as_array(shape)
            .map_or(weft_ir::ElementType::F32, |array| array.elem)
    }
}
