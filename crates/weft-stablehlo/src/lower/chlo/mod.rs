//! CHLO ("client HLO"): the ops JAX and other front ends emit that HLO has no
//! instruction for, lowered the way XLA's CHLO legalization expands them
//! (`ChloLegalizeToStablehlo` and its decomposition patterns).
//!
//! The general rule, for every elementwise CHLO op:
//! 1. a `chlo.broadcast_*` op first broadcasts each operand to the result's
//!    shape with NumPy's rule (trailing dimensions aligned, size-1
//!    dimensions stretched) — the only rule XLA's legalization accepts, so an
//!    explicit `broadcast_dimensions` must be that one;
//! 2. the op then lowers by its [`Rule`]: one HLO instruction (`chlo.tan`,
//!    `chlo.mulhi`, `chlo.broadcast_add`, …), a comparison
//!    (`chlo.broadcast_compare`), or a decomposition into elementwise
//!    arithmetic, one family per file;
//! 3. a decomposition XLA computes in at least `f32` (the special functions,
//!    `sinh`, `cosh`, the error functions) converts `f16`/`bf16` operands to
//!    `f32` first and its result back, as XLA's `materializeWithUpcast`; the
//!    others (the inverse trigonometric family, `square`, `next_after`,
//!    `is_inf`) compute in the operand type.
//!
//! `chlo.top_k`, `chlo.ragged_dot` and `chlo.scan` keep their own lowerings
//! (HLO has `topk`, `ragged-dot` and `scan`); `chlo.constant` is a constant and
//! `chlo.constant_like` a broadcast constant of the operand's shape.

pub(crate) mod arithmetic;
mod bessel;
mod broadcasting;
mod classification;
mod complex_parts;
mod error_function;
mod gamma;
mod hyperbolic;
mod inverse_trigonometric;
mod inverse_trigonometric_complex;
mod next_after;
mod zeta;

pub(crate) use arithmetic::Arithmetic;
use weft_ir::attrs::Attrs;
use weft_ir::{Comp, ElementType, Instr, Opcode};

use super::{LowerResult, Lowering};
use crate::ir::Op;
use crate::ops::{OpKind, Syntax};

/// A decomposition: the result instruction from the operand instructions, or
/// why the operands' type is not supported.
type Build = fn(&mut Arithmetic<'_, '_>, &[Instr]) -> Result<Instr, String>;

/// The precision a decomposition computes in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Precision {
    /// The operand type.
    Operand,
    /// `f32` for narrower floats.
    AtLeastF32,
}

/// How an elementwise CHLO op lowers after its operands are broadcast.
#[derive(Clone, Copy)]
enum Rule {
    /// One HLO instruction of the result's shape.
    Instruction(Opcode),
    /// `compare` with the op's direction and comparison type.
    Compare,
    /// Arithmetic built by a decomposition.
    Decomposition(Precision, Build),
}

/// The rule of an elementwise CHLO op; `None` for the others.
fn rule(kind: OpKind) -> Option<Rule> {
    use OpKind as K;
    use Precision::{AtLeastF32, Operand};
    use Rule::{Decomposition, Instruction};
    Some(match kind {
        K::ChloAcos => Decomposition(Operand, inverse_trigonometric::acos),
        K::ChloAcosh => Decomposition(Operand, inverse_trigonometric::acosh),
        K::ChloAsin => Decomposition(Operand, inverse_trigonometric::asin),
        K::ChloAsinAcosKernel => Decomposition(Operand, inverse_trigonometric::asin_acos_kernel),
        K::ChloAsinh => Decomposition(Operand, inverse_trigonometric::asinh),
        K::ChloAtan => Decomposition(Operand, inverse_trigonometric::atan),
        K::ChloAtanh => Decomposition(Operand, inverse_trigonometric::atanh),
        K::ChloBesselI1e => Decomposition(AtLeastF32, bessel::bessel_i1e),
        K::ChloConj => Decomposition(Operand, complex_parts::conj),
        K::ChloCosh => Decomposition(AtLeastF32, hyperbolic::cosh),
        K::ChloDigamma => Decomposition(AtLeastF32, gamma::digamma),
        K::ChloErf => Decomposition(AtLeastF32, error_function::erf),
        K::ChloErfInv => Decomposition(AtLeastF32, error_function::erf_inv),
        K::ChloErfc => Decomposition(AtLeastF32, error_function::erfc),
        K::ChloIsInf => Decomposition(Operand, classification::is_inf),
        K::ChloIsNegInf => Decomposition(Operand, classification::is_neg_inf),
        K::ChloIsPosInf => Decomposition(Operand, classification::is_pos_inf),
        K::ChloLgamma => Decomposition(AtLeastF32, gamma::lgamma),
        K::ChloSinh => Decomposition(AtLeastF32, hyperbolic::sinh),
        K::ChloSquare => Decomposition(Operand, complex_parts::square),
        K::ChloTan => Instruction(Opcode::Tan),
        K::ChloMulhi => Instruction(Opcode::Mulhi),
        K::ChloNextAfter | K::ChloBroadcastNextAfter => {
            Decomposition(Operand, next_after::next_after)
        }
        K::ChloPolygamma | K::ChloBroadcastPolygamma => Decomposition(AtLeastF32, gamma::polygamma),
        K::ChloZeta | K::ChloBroadcastZeta => Decomposition(AtLeastF32, zeta::zeta),
        K::ChloBroadcastAdd => Instruction(Opcode::Add),
        K::ChloBroadcastAnd => Instruction(Opcode::And),
        K::ChloBroadcastAtan2 => Instruction(Opcode::Atan2),
        K::ChloBroadcastCompare => Rule::Compare,
        K::ChloBroadcastComplex => Instruction(Opcode::Complex),
        K::ChloBroadcastDivide => Instruction(Opcode::Divide),
        K::ChloBroadcastMaximum => Instruction(Opcode::Maximum),
        K::ChloBroadcastMinimum => Instruction(Opcode::Minimum),
        K::ChloBroadcastMultiply => Instruction(Opcode::Multiply),
        K::ChloBroadcastOr => Instruction(Opcode::Or),
        K::ChloBroadcastPower => Instruction(Opcode::Power),
        K::ChloBroadcastRemainder => Instruction(Opcode::Remainder),
        K::ChloBroadcastSelect => Instruction(Opcode::Select),
        K::ChloBroadcastShiftLeft => Instruction(Opcode::ShiftLeft),
        K::ChloBroadcastShiftRightArithmetic => Instruction(Opcode::ShiftRightArithmetic),
        K::ChloBroadcastShiftRightLogical => Instruction(Opcode::ShiftRightLogical),
        K::ChloBroadcastSubtract => Instruction(Opcode::Subtract),
        K::ChloBroadcastXor => Instruction(Opcode::Xor),
        _ => return None,
    })
}

/// Whether `kind` is an elementwise CHLO op this module lowers.
pub(crate) fn is_elementwise(kind: OpKind) -> bool {
    rule(kind).is_some()
}

impl Lowering<'_> {
    /// Lowers an elementwise CHLO op by its [`Rule`].
    pub(crate) fn lower_chlo(&mut self, comp: Comp, op: Op, kind: OpKind) -> LowerResult<()> {
        let Some(rule) = rule(kind) else {
            return Err(self.error(op, "not an elementwise chlo op"));
        };
        let mut operands = self.operands(op)?;
        let shape = self.result_shape(op)?;
        let name = self.name_for(op, kind.name().trim_start_matches("chlo."));
        if kind.syntax() == Syntax::ChloBroadcast {
            operands = self.broadcast_operands(comp, op, &operands, shape, &name)?;
        }
        let result = match rule {
            Rule::Instruction(opcode) => {
                self.emit(comp, &name, opcode, shape, operands, Attrs::plain())
            }
            Rule::Compare => {
                let attrs = self.compare_attrs(op)?;
                self.emit(comp, &name, Opcode::Compare, shape, operands, attrs)
            }
            Rule::Decomposition(precision, build) => {
                let mut arithmetic = Arithmetic::new(self, comp, &name);
                let result = decompose(&mut arithmetic, &operands, precision, build);
                result.map_err(|message| self.error(op, message))?
            }
        };
        self.bind_results(comp, op, result);
        Ok(())
    }
}

/// Runs `build`, converting narrow float operands to `f32` and the result
/// back when the decomposition computes in at least `f32`.
fn decompose(
    arithmetic: &mut Arithmetic<'_, '_>,
    operands: &[Instr],
    precision: Precision,
    build: Build,
) -> Result<Instr, String> {
    let Some(&first) = operands.first() else {
        return Err("expected operands".to_string());
    };
    let original = arithmetic.element(first);
    let upcast =
        precision == Precision::AtLeastF32 && original.is_float() && original.bit_width() < 32;
    if !upcast {
        return build(arithmetic, operands);
    }
    let widened: Vec<Instr> = operands
        .iter()
        .map(|&x| arithmetic.convert(x, ElementType::F32))
        .collect();
    let result = build(arithmetic, &widened)?;
    Ok(if arithmetic.element(result).is_float() {
        arithmetic.convert(result, original)
    } else {
        result
    })
}

/// The element types a real-valued decomposition accepts.
pub(super) fn require_float(
    arithmetic: &Arithmetic<'_, '_>,
    x: Instr,
    op: &str,
) -> Result<(), String> {
    let element = arithmetic.element(x);
    if element.is_float() {
        Ok(())
    } else {
        Err(format!(
            "{op} of {element} is not supported (it takes floats)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use weft_ir::{ElementType, Module, Opcode};

    use crate::ops::{OpKind, Syntax};

    /// `text` lowered to a module that verifies, or the lowering's message.
    fn lowered(text: &str) -> Result<Module, String> {
        let body = crate::text::parse(text).map_err(|d| d.render("test", text))?;
        let module = crate::lower::lower(&body).map_err(|d| d.render("test", text))?;
        if let Err(errors) = weft_ir::verify(&module) {
            let list: Vec<String> = errors.iter().map(|e| e.message.clone()).collect();
            panic!("the lowered module does not verify: {}", list.join("\n"));
        }
        Ok(module)
    }

    fn unary(op: &str, ty: &str) -> String {
        format!(
            "func.func @main(%x: tensor<4x{ty}>) -> tensor<4x{ty}> {{\n  %r = chlo.{op} %x : tensor<4x{ty}> -> tensor<4x{ty}>\n  return %r : tensor<4x{ty}>\n}}\n"
        )
    }

    fn opcodes(module: &Module) -> Vec<Opcode> {
        module
            .all_instrs()
            .map(|i| module.instr(i).opcode)
            .collect()
    }

    #[test]
    fn every_elementwise_chlo_op_has_a_rule_and_a_chlo_syntax() {
        for &kind in OpKind::ALL {
            if !kind.name().starts_with("chlo.") {
                continue;
            }
            let elementwise = matches!(
                kind.syntax(),
                Syntax::ChloUnary | Syntax::ChloBinary | Syntax::ChloBroadcast
            );
            assert_eq!(super::is_elementwise(kind), elementwise, "{}", kind.name());
        }
    }

    #[test]
    fn narrow_floats_compute_in_f32_where_xla_upcasts() {
        let module = lowered(&unary("lgamma", "bf16")).unwrap();
        let converts: Vec<_> = module
            .all_instrs()
            .filter(|&i| module.instr(i).opcode == Opcode::Convert)
            .collect();
        assert_eq!(converts.len(), 2, "one convert in, one out");
        let root = module.comp(module.entry().unwrap()).root().unwrap();
        assert_eq!(module.instr(root).opcode, Opcode::Convert);
        let arithmetic = module
            .all_instrs()
            .find(|&i| module.instr(i).opcode == Opcode::Log)
            .unwrap();
        let shape = module.shape_of(arithmetic);
        assert_eq!(
            module.shapes.as_array(shape).unwrap().elem,
            ElementType::F32
        );
        // The inverse trigonometric family computes in the operand type.
        let module = lowered(&unary("asinh", "bf16")).unwrap();
        assert!(!opcodes(&module).contains(&Opcode::Convert));
    }

    #[test]
    fn one_instruction_ops_stay_one_instruction() {
        let module = lowered(&unary("tan", "f32")).unwrap();
        assert_eq!(opcodes(&module), vec![Opcode::Parameter, Opcode::Tan]);
    }

    #[test]
    fn broadcasting_reshapes_away_stretched_dimensions() {
        let text = "func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> tensor<2x3xf32> {\n  %r = chlo.broadcast_add %a, %b : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>\n  return %r : tensor<2x3xf32>\n}\n";
        let module = lowered(text).unwrap();
        let kinds = opcodes(&module);
        assert!(kinds.contains(&Opcode::Reshape), "{kinds:?}");
        assert!(kinds.contains(&Opcode::Broadcast), "{kinds:?}");
    }

    #[test]
    fn unsupported_forms_are_located_errors() {
        let error = lowered(&unary("_asin_acos_kernel", "f32")).unwrap_err();
        assert!(
            error.contains("_asin_acos_kernel of f32 is not supported"),
            "{error}"
        );
        assert!(error.contains("test:2"), "located at the op: {error}");
        let error = lowered(&unary("lgamma", "i32")).unwrap_err();
        assert!(error.contains("lgamma of s32 is not supported"), "{error}");
        let text = "func.func @main(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {\n  %r = chlo.broadcast_add %a, %b {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>\n  return %r : tensor<2x3xf32>\n}\n";
        let error = lowered(text).unwrap_err();
        assert!(error.contains("NumPy's trailing alignment"), "{error}");
    }
}
