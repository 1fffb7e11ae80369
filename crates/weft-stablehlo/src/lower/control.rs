//! Regions as computations: reducers and comparators (`reduce`,
//! `reduce_window`, `select_and_scatter`, `sort`, `map`, `scatter`,
//! `chlo.scan`), control flow (`while`, `if`, `case`) and `func.call`.
//!
//! A reducer's block arguments become its parameters. The regions of `while`,
//! `if` and `case` may read values defined outside them; those *captures*
//! (found once for every region, `captures`) travel with the loop state (after the
//! loop-carried values, passed through unchanged by the body) or in each
//! branch's operand tuple. A captured constant is re-created inside the
//! computation instead, which is also what lets reducers use constants from
//! outside.
//!
//! A future (an HLO async start's value) crosses a loop in its state, but not
//! a call or a branch: the lowering types a callee's parameters and a
//! branch's results from their StableHLO types, which say nothing of the
//! start's HLO shape, so such a program is refused at the op.

use weft_ir::attrs::{Attrs, ParameterAttrs, ScanAttrs, Window, WindowDim};
use weft_ir::{Callees, Comp, Instr, Opcode, Shape};

use super::{LowerResult, Lowering};
use crate::ir::{Op, Region, Value, ValueDef};
use crate::ops::OpKind;

impl Lowering<'_> {
    pub(crate) fn lower_control(&mut self, comp: Comp, op: Op, kind: OpKind) -> LowerResult<()> {
        match kind {
            OpKind::Reduce => {
                let dimensions = self.ints(op, "dimensions")?;
                let reducer = self.reducer(op, 0, "region")?;
                self.with_callees(
                    comp,
                    op,
                    Opcode::Reduce,
                    Attrs::Dimensions {
                        dimensions: dimensions.into(),
                    },
                    vec![reducer],
                )
            }
            OpKind::ReduceWindow => {
                let window = self.window(op)?;
                let reducer = self.reducer(op, 0, "region")?;
                self.with_callees(
                    comp,
                    op,
                    Opcode::ReduceWindow,
                    Attrs::Window(Some(window)),
                    vec![reducer],
                )
            }
            OpKind::SelectAndScatter => {
                let window = self.window(op)?;
                let select = self.reducer(op, 0, "select")?;
                let scatter = self.reducer(op, 1, "scatter")?;
                self.with_callees(
                    comp,
                    op,
                    Opcode::SelectAndScatter,
                    Attrs::Window(Some(window)),
                    vec![select, scatter],
                )
            }
            OpKind::Sort => {
                let dimension =
                    super::integer_attribute(self.body.attribute(op, "dimension")).unwrap_or(-1);
                let rank = self
                    .body
                    .ty(self.body.ops[op].operands[0])
                    .rank()
                    .unwrap_or(1) as i64;
                let dimension = if dimension < 0 {
                    dimension + rank
                } else {
                    dimension
                };
                let comparator = self.reducer(op, 0, "compare")?;
                let is_stable = self.flag(op, "is_stable");
                self.with_callees(
                    comp,
                    op,
                    Opcode::Sort,
                    Attrs::Sort {
                        dimension,
                        is_stable,
                    },
                    vec![comparator],
                )
            }
            OpKind::Map => {
                let dimensions = self.ints(op, "dimensions")?;
                let computation = self.reducer(op, 0, "map")?;
                self.with_callees(
                    comp,
                    op,
                    Opcode::Map,
                    Attrs::Dimensions {
                        dimensions: dimensions.into(),
                    },
                    vec![computation],
                )
            }
            OpKind::Scatter => {
                let attrs = self.scatter_attrs(op)?;
                let update = self.reducer(op, 0, "region")?;
                self.with_callees(
                    comp,
                    op,
                    Opcode::Scatter,
                    Attrs::Scatter(Box::new(attrs)),
                    vec![update],
                )
            }
            OpKind::ChloScan => {
                let dimension = self.int(op, "dimension")?;
                let num_carries = self
                    .scan_carries(op)
                    .ok_or_else(|| self.error(op, "missing operandSegmentSizes"))?;
                let attrs = ScanAttrs {
                    dimension,
                    num_carries,
                    is_reverse: self.flag(op, "is_reverse"),
                    is_associative: self.flag(op, "is_associative"),
                };
                let combiner = self.reducer(op, 0, "scan")?;
                self.with_callees(
                    comp,
                    op,
                    Opcode::Scan,
                    Attrs::Scan(Box::new(attrs)),
                    vec![combiner],
                )
            }
            OpKind::Call => self.call(comp, op),
            OpKind::While => self.while_loop(comp, op),
            OpKind::If | OpKind::Case => self.conditional(comp, op),
            _ => Err(self.error(op, "not a control-flow op")),
        }
    }

    /// The number of carries of a `chlo.scan`: its `inits` operand segment.
    fn scan_carries(&self, op: Op) -> Option<i64> {
        let segments = self.body.attribute(op, "operandSegmentSizes")?;
        let sizes = super::ops::integer_list(segments)?;
        sizes.get(1).copied()
    }

    /// One instruction with `op`'s operands calling `callees`.
    fn with_callees(
        &mut self,
        comp: Comp,
        op: Op,
        opcode: Opcode,
        attrs: Attrs,
        callees: Vec<Comp>,
    ) -> LowerResult<()> {
        let operands = self.operands(op)?;
        let shape = self.result_shape(op)?;
        let name = self.name_for(op, opcode.name());
        let instr = self.emit(comp, &name, opcode, shape, operands, attrs);
        self.module.instrs[instr].callees = callees.into();
        self.bind_results(comp, op, instr);
        Ok(())
    }

    /// The window of `reduce_window` and `select_and_scatter`.
    fn window(&self, op: Op) -> LowerResult<Window> {
        let sizes = self.ints(op, "window_dimensions")?;
        let strides = self.optional_ints(op, "window_strides")?;
        let base = self.optional_ints(op, "base_dilations")?;
        let dilations = self.optional_ints(op, "window_dilations")?;
        let padding = self.optional_ints(op, "padding")?;
        Ok(Window {
            dims: sizes
                .iter()
                .enumerate()
                .map(|(k, &size)| WindowDim {
                    stride: strides.as_ref().map_or(1, |s| s[k]),
                    padding_low: padding.as_ref().map_or(0, |p| p[2 * k]),
                    padding_high: padding.as_ref().map_or(0, |p| p[2 * k + 1]),
                    base_dilation: base.as_ref().map_or(1, |b| b[k]),
                    window_dilation: dilations.as_ref().map_or(1, |d| d[k]),
                    ..WindowDim::new(size)
                })
                .collect(),
        })
    }

    /// Region `index` of `op` as a computation whose parameters are the
    /// region's block arguments.
    pub(crate) fn reducer(&mut self, op: Op, index: usize, name: &str) -> LowerResult<Comp> {
        let Some(&region) = self.body.ops[op].regions.get(index) else {
            return Err(self.error(op, format!("missing region #{index}")));
        };
        let Some(block) = self.body.entry_block(region) else {
            return Err(self.error(op, "empty region"));
        };
        let comp = self.new_computation(name);
        let saved = self.bind_captured_constants(op, comp, &[region])?;
        for (number, &argument) in self.body.blocks[block].arguments.clone().iter().enumerate() {
            let ty = self.body.ty(argument).clone();
            let shape = self.shape(&ty).map_err(|m| self.error(op, m))?;
            let parameter = self.parameter(comp, number, shape, &format!("Arg_{number}"));
            self.values.insert(argument, parameter);
        }
        let results = self.lower_block(comp, block)?;
        let terminator = *self.body.blocks[block].ops.last().expect("a terminator");
        let root = self.root_of(comp, &results, terminator);
        self.module.set_root(comp, root);
        self.restore(saved);
        Ok(comp)
    }

    /// `parameter(number)` of `comp`.
    pub(crate) fn parameter(
        &mut self,
        comp: Comp,
        number: usize,
        shape: Shape,
        name: &str,
    ) -> Instr {
        self.emit(
            comp,
            name,
            Opcode::Parameter,
            shape,
            Vec::new(),
            Attrs::Parameter(ParameterAttrs {
                number: number as i64,
                replication: None,
            }),
        )
    }

    fn call(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let instr = self.call_function(comp, op, "callee", false)?;
        self.bind_results(comp, op, instr);
        Ok(())
    }

    /// A `call` of the function that `op`'s symbol attribute `attribute`
    /// names, with `op`'s operands and result shape.
    pub(crate) fn call_function(
        &mut self,
        comp: Comp,
        op: Op,
        attribute: &str,
        is_composite: bool,
    ) -> LowerResult<Instr> {
        let Some(crate::ir::Attribute::SymbolRef(path)) = self.body.attribute(op, attribute) else {
            return Err(self.error(op, format!("missing the function '{attribute}'")));
        };
        let func = self.function_named(op, &path[0].clone())?;
        let data = &self.body.ops[op];
        let crossing: Vec<Value> = data.operands.iter().chain(&data.results).copied().collect();
        self.refuse_futures_crossing(op, &crossing, "into or out of a call")?;
        let callee = self.function_computation(func)?;
        let operands = self.operands(op)?;
        let shape = self.result_shape(op)?;
        let name = self.name_for(op, "call");
        let instr = self.emit(
            comp,
            &name,
            Opcode::Call,
            shape,
            operands,
            Attrs::Call { is_composite },
        );
        self.module.instrs[instr].callees = Callees::from([callee]);
        Ok(instr)
    }

    /// `while`: the loop state is the loop-carried values followed by the
    /// values the condition and body capture.
    fn while_loop(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let regions = self.body.ops[op].regions.clone();
        if regions.len() != 2 {
            return Err(self.error(op, "a while needs a condition and a body"));
        }
        let carried = self.operands(op)?;
        let captures = self.non_constant_captures(&regions);
        let mut state = carried.clone();
        for &value in &captures {
            state.push(self.value(op, value)?);
        }
        let name = self.name_for(op, "while");
        let tupled = state.len() != 1;
        let init = if tupled {
            self.tuple(comp, state.clone(), "tuple")
        } else {
            state[0]
        };
        let state_shape = self.module.shape_of(init);

        let condition = self.loop_region(
            op,
            regions[0],
            &captures,
            state_shape,
            tupled,
            carried.len(),
            false,
        )?;
        let body = self.loop_region(
            op,
            regions[1],
            &captures,
            state_shape,
            tupled,
            carried.len(),
            true,
        )?;
        let instr = self.emit(
            comp,
            &name,
            Opcode::While,
            state_shape,
            vec![init],
            Attrs::plain(),
        );
        self.module.instrs[instr].callees = Callees::from([body, condition]);
        let results = self.body.ops[op].results.clone();
        for (index, result) in results.into_iter().enumerate() {
            let element = if tupled {
                self.get_tuple_element(comp, instr, index, &name)
            } else {
                instr
            };
            self.values.insert(result, element);
        }
        Ok(())
    }

    /// A while loop's condition or body: one parameter (the state); for the
    /// body, the root is the new state with the captures passed through.
    #[allow(clippy::too_many_arguments)]
    fn loop_region(
        &mut self,
        op: Op,
        region: Region,
        captures: &[Value],
        state_shape: Shape,
        tupled: bool,
        carried: usize,
        is_body: bool,
    ) -> LowerResult<Comp> {
        let Some(block) = self.body.entry_block(region) else {
            return Err(self.error(op, "empty region"));
        };
        let name = if is_body { "body" } else { "cond" };
        let comp = self.new_computation(&format!("{}_{name}", self.name_for(op, "while")));
        let saved = self.bind_captured_constants(op, comp, &[region])?;
        let parameter = self.parameter(comp, 0, state_shape, "state");
        let mut elements = Vec::new();
        let count = carried + captures.len();
        for index in 0..count {
            elements.push(if tupled {
                self.get_tuple_element(comp, parameter, index, "state")
            } else {
                parameter
            });
        }
        let arguments = self.body.blocks[block].arguments.clone();
        let mut saved_values = saved;
        for (index, argument) in arguments.into_iter().enumerate() {
            self.values.insert(argument, elements[index]);
        }
        for (index, &capture) in captures.iter().enumerate() {
            let old = self.values.insert(capture, elements[carried + index]);
            saved_values.push((capture, old));
        }
        let results = self.lower_block(comp, block)?;
        let terminator = *self.body.blocks[block].ops.last().expect("a terminator");
        let root = if is_body {
            let mut next = results;
            next.extend_from_slice(&elements[carried..]);
            if tupled {
                self.tuple(comp, next, "next_state")
            } else {
                next[0]
            }
        } else {
            self.root_of(comp, &results, terminator)
        };
        self.module.set_root(comp, root);
        self.restore(saved_values);
        Ok(comp)
    }

    /// `if` (predicate, two branches) and `case` (index, N branches): each
    /// branch takes the tuple of the values it captures.
    fn conditional(&mut self, comp: Comp, op: Op) -> LowerResult<()> {
        let selector = self.operands(op)?[0];
        let regions = self.body.ops[op].regions.clone();
        let mut crossing = self.captures(&regions);
        crossing.extend_from_slice(&self.body.ops[op].results);
        self.refuse_futures_crossing(op, &crossing, "into or out of a branch")?;
        let name = self.name_for(op, "conditional");
        let mut operands = vec![selector];
        let mut branches = Vec::new();
        for (index, &region) in regions.iter().enumerate() {
            let captures = self.non_constant_captures(&[region]);
            let values = captures
                .iter()
                .map(|&v| self.value(op, v))
                .collect::<LowerResult<Vec<_>>>()?;
            let tuple = self.tuple(comp, values, &format!("{name}.branch{index}"));
            operands.push(tuple);
            let tuple_shape = self.module.shape_of(tuple);
            let Some(block) = self.body.entry_block(region) else {
                return Err(self.error(op, "empty branch"));
            };
            let branch = self.new_computation(&format!("{name}_branch{index}"));
            let mut saved = self.bind_captured_constants(op, branch, &[region])?;
            let parameter = self.parameter(branch, 0, tuple_shape, "captures");
            for (position, &capture) in captures.iter().enumerate() {
                let element = self.get_tuple_element(branch, parameter, position, "captures");
                let old = self.values.insert(capture, element);
                saved.push((capture, old));
            }
            let results = self.lower_block(branch, block)?;
            let terminator = *self.body.blocks[block].ops.last().expect("a terminator");
            let root = self.root_of(branch, &results, terminator);
            self.module.set_root(branch, root);
            self.restore(saved);
            branches.push(branch);
        }
        let shape = self.result_shape(op)?;
        let instr = self.emit(
            comp,
            &name,
            Opcode::Conditional,
            shape,
            operands,
            Attrs::plain(),
        );
        self.module.instrs[instr].callees = branches.into();
        self.bind_results(comp, op, instr);
        Ok(())
    }

    /// Refuses `op` when one of `values` is a future (or JAX's start result
    /// standing for one), which would cross `boundary`.
    fn refuse_futures_crossing(&self, op: Op, values: &[Value], boundary: &str) -> LowerResult<()> {
        let Some(&future) = values
            .iter()
            .find(|&&v| self.future_origins.source(v).is_some())
        else {
            return Ok(());
        };
        let name = self
            .body
            .value_name(future)
            .map_or_else(String::new, |name| format!(" {name}"));
        Err(self.error_with_hint(
            op,
            format!("weft lowers a future carried through while loop state or an optimization_barrier, but not one passed {boundary}"),
            format!("finish the future{name} with its done on the same side as its start"),
        ))
    }

    // ----- captures -----

    /// The values `regions` (one region, or all of one op's) use but do not
    /// define, in order of first use.
    pub(crate) fn captures(&self, regions: &[Region]) -> Vec<Value> {
        self.captures.of_regions(self.body, regions)
    }

    /// The captures of `regions` that are not constants.
    fn non_constant_captures(&self, regions: &[Region]) -> Vec<Value> {
        self.captures(regions)
            .into_iter()
            .filter(|&v| self.constant_op(v).is_none())
            .collect()
    }

    /// The `stablehlo.constant` defining `value`, if one does.
    fn constant_op(&self, value: Value) -> Option<Op> {
        match self.body.values[value].def {
            ValueDef::Result(op, _) if self.body.ops[op].name.kind() == Some(OpKind::Constant) => {
                Some(op)
            }
            _ => None,
        }
    }

    /// Re-creates the constants `regions` capture inside `comp`; other
    /// captures are left to the caller. Returns the mappings to restore.
    fn bind_captured_constants(
        &mut self,
        op: Op,
        comp: Comp,
        regions: &[Region],
    ) -> LowerResult<Vec<(Value, Option<Instr>)>> {
        let mut saved = Vec::new();
        for value in self.captures(regions) {
            if self.constant_op(value).is_none() {
                continue;
            }
            let outer = self.value(op, value)?;
            let data = self.module.instrs[outer].clone();
            let copy = self.emit(
                comp,
                &data.name,
                data.opcode,
                data.shape,
                Vec::new(),
                data.attrs,
            );
            let old = self.values.insert(value, copy);
            saved.push((value, old));
        }
        Ok(saved)
    }

    /// Puts back the value mappings a region replaced.
    fn restore(&mut self, saved: Vec<(Value, Option<Instr>)>) {
        for (value, old) in saved.into_iter().rev() {
            match old {
                Some(instr) => self.values.insert(value, instr),
                None => self.values.remove(&value),
            };
        }
    }
}
