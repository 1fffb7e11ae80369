//! Every future is taken exactly once: by the done that finishes it, or by
//! one op that passes it on.
//!
//! A future is a value of type `!stablehlo.future<…>` — made by an
//! `async_start`, an explicit `*_start`, or coming in as a function argument
//! or call result — or the result of JAX's `stablehlo.custom_call
//! @<collective>-start`, which is a plain tensor that stands for one. HLO's
//! verifier asks the same of what these lower to (an async start with no
//! done, or two, is an error there); checking it here says so at the
//! StableHLO op, before the lowering.
//!
//! A future may be passed on, and then the value it becomes carries the duty:
//! - `stablehlo.while` operand → the loop body's argument and the loop's
//!   result; the body's `stablehlo.return` → both again (the next iteration,
//!   or the loop's end). The condition sees the future but may not take it;
//! - `stablehlo.optimization_barrier` operand → its result;
//! - `func.call` operand → the callee's argument; a `func.return` → the
//!   results of every call of the function (the entry function has no caller,
//!   so returning a future from it leaves it unfinished);
//! - the `stablehlo.return` of an `if`/`case` branch → the op's result.
//!
//! Branches of an `if`/`case` run one at a time, so a future defined outside
//! may be taken inside them, once in every branch. Any other region (a loop
//! body, a reducer) may run many times, so it may not take a future from
//! outside. A custom call other than JAX's may take a `!stablehlo.future`
//! operand (the dialect allows it; what it does with it is its own business),
//! and `@control_dep` only orders, so it does not count, as in HLO.
//!
//! Futures are checked after the other rules, and not at all where the op
//! that made them already has an error: a malformed start gets one answer.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::future_origin::{CUSTOM_CALL_STARTS, FutureOrigins};
use crate::ir::{Attribute, Body, Op, Region, Type, Value, ValueDef};
use crate::ops::{ExplicitPair, OpKind};
use crate::verify::Checker;

pub(super) fn check(cx: &mut Checker, ops: &[Op]) {
    let flow = Flow::new(cx.body, ops);
    // Ops with an error: the futures they make get no second one. That
    // includes ops found here to take a future they may not, so that the
    // result of one that passed on a future it should not have had is not
    // blamed again.
    let mut faulty: FxHashSet<Op> = cx.errors.iter().map(|e| e.op).collect();
    for value in flow.futures(ops) {
        let owner = flow.owner(value);
        let nested_fault = matches!(cx.body.values[value].def, ValueDef::Result(..))
            && flow.nested(owner).any(|op| faulty.contains(&op));
        if faulty.contains(&owner) || nested_fault {
            continue;
        }
        let blamed = if flow.is_condition_argument(value) {
            flow.check_watched(cx, value)
        } else {
            flow.check_taken_once(cx, value)
        };
        faulty.extend(blamed);
    }
}

/// How one use treats a future.
enum Taking {
    /// A done finishes it (or a custom call takes it for good).
    Finish,
    /// It becomes these values, which must be taken in turn.
    PassOn(Vec<Value>),
    /// The op only orders (`@control_dep`); it does not count.
    Ignore,
    /// The entry function returns it: nothing can finish it.
    Escape,
    /// An op that cannot take a future.
    Misuse,
}

/// One use of a future, seen from the block that defines it: the op there
/// that holds the use (`path[0]`), down through the regions it sits in, to
/// the op that uses it (last).
#[derive(Clone)]
struct Use {
    path: Vec<Op>,
}

impl Use {
    fn user(&self) -> Op {
        *self.path.last().expect("a path holds the user")
    }
}

/// Who uses what, and who calls whom, for following futures.
struct Flow<'a> {
    body: &'a Body,
    /// Each value's uses (user, operand index), in walk order.
    uses: FxHashMap<Value, Vec<(Op, usize)>>,
    /// The `func.call`s of each function.
    calls: FxHashMap<Op, Vec<Op>>,
    /// Functions by symbol.
    functions: FxHashMap<&'a str, Op>,
    entry: Option<Op>,
    /// Each op's position in the walk.
    order: FxHashMap<Op, usize>,
    /// Where futures started.
    origins: FutureOrigins<'a>,
}

impl<'a> Flow<'a> {
    fn new(body: &'a Body, ops: &[Op]) -> Flow<'a> {
        let functions: FxHashMap<&str, Op> = body
            .functions()
            .into_iter()
            .filter_map(|f| Some((body.symbol_name(f)?, f)))
            .collect();
        let mut uses: FxHashMap<Value, Vec<(Op, usize)>> = FxHashMap::default();
        let mut calls: FxHashMap<Op, Vec<Op>> = FxHashMap::default();
        for &op in ops {
            for (index, &operand) in body.ops[op].operands.iter().enumerate() {
                uses.entry(operand).or_default().push((op, index));
            }
            if body.ops[op].name.kind() == Some(OpKind::Call)
                && let Some(callee) = callee(body, op).and_then(|name| functions.get(name))
            {
                calls.entry(*callee).or_default().push(op);
            }
        }
        Flow {
            body,
            uses,
            calls,
            functions,
            entry: body.entry_function(),
            order: ops.iter().enumerate().map(|(i, &op)| (op, i)).collect(),
            origins: FutureOrigins::new(body),
        }
    }

    /// Every future, in walk order of the ops that define them.
    fn futures(&self, ops: &[Op]) -> Vec<Value> {
        let body = self.body;
        let mut found: Vec<Value> = Vec::new();
        let mut seen: FxHashSet<Value> = FxHashSet::default();
        for &op in ops {
            let mut defined: Vec<Value> = Vec::new();
            for &region in &body.ops[op].regions {
                for &block in &body.regions[region].blocks {
                    defined.extend(body.blocks[block].arguments.iter().copied());
                }
            }
            defined.extend(body.ops[op].results.iter().copied());
            let jax_start = is_jax_start(body, op);
            for value in defined {
                let is_future = matches!(body.ty(value), Type::Future(_))
                    || (jax_start && body.values[value].def == ValueDef::Result(op, 0));
                if is_future && seen.insert(value) {
                    found.push(value);
                }
            }
        }
        // JAX's futures are tensors: follow them to the values they become.
        let mut next = 0;
        while next < found.len() {
            let value = found[next];
            next += 1;
            for &(user, operand) in self.uses_of(value) {
                if let Taking::PassOn(values) = self.taking(value, user, operand) {
                    for passed in values {
                        if seen.insert(passed) {
                            found.push(passed);
                        }
                    }
                }
                if let Some(condition) = self.condition_argument(user, operand)
                    && seen.insert(condition)
                {
                    found.push(condition);
                }
            }
        }
        found.sort_by_key(|&v| (self.order.get(&self.owner(v)).copied(), v));
        found
    }

    fn uses_of(&self, value: Value) -> &[(Op, usize)] {
        self.uses.get(&value).map_or(&[], Vec::as_slice)
    }

    /// The op that defines `value`: its op, or the op whose region has it as
    /// an argument.
    fn owner(&self, value: Value) -> Op {
        match self.body.values[value].def {
            ValueDef::Result(op, _) => op,
            ValueDef::Argument(block, _) => self.body.parent_op(block).unwrap_or(self.body.module),
        }
    }

    /// Every op nested in `op`'s regions.
    fn nested(&self, op: Op) -> impl Iterator<Item = Op> {
        let mut inside = Vec::new();
        self.body.walk(op, &mut |inner| inside.push(inner));
        inside.into_iter().skip(1)
    }

    /// The while condition's argument that sees operand `operand` of `user`,
    /// when `user` is a while.
    fn condition_argument(&self, user: Op, operand: usize) -> Option<Value> {
        let data = &self.body.ops[user];
        (data.name.kind() == Some(OpKind::While)).then_some(())?;
        self.region_argument(*data.regions.first()?, operand)
    }

    /// Whether `value` is an argument of a while loop's condition.
    fn is_condition_argument(&self, value: Value) -> bool {
        let ValueDef::Argument(block, _) = self.body.values[value].def else {
            return false;
        };
        let Some(owner) = self.body.parent_op(block) else {
            return false;
        };
        self.body.ops[owner].name.kind() == Some(OpKind::While)
            && self.body.ops[owner].regions.first() == self.body.blocks[block].parent.as_ref()
    }

    fn region_argument(&self, region: Region, index: usize) -> Option<Value> {
        let block = *self.body.regions[region].blocks.first()?;
        self.body.blocks[block].arguments.get(index).copied()
    }

    /// How `user` treats `future`, its operand number `operand`.
    fn taking(&self, future: Value, user: Op, operand: usize) -> Taking {
        let body = self.body;
        let data = &body.ops[user];
        let Some(kind) = data.name.kind() else {
            return Taking::Misuse;
        };
        let result = |index: usize| data.results.get(index).copied();
        match kind {
            OpKind::AsyncDone => Taking::Finish,
            kind if ExplicitPair::of(kind).is_some_and(|pair| pair.done == kind) => Taking::Finish,
            OpKind::CustomCall => match call_target(body, user) {
                Some("control_dep" | "ControlDep") => Taking::Ignore,
                Some(target) if is_jax_done(target) => Taking::Finish,
                _ if matches!(body.ty(future), Type::Future(_)) && !is_jax_start(body, user) => {
                    Taking::Finish
                }
                _ => Taking::Misuse,
            },
            OpKind::While => {
                let loop_body = data
                    .regions
                    .get(1)
                    .and_then(|&r| self.region_argument(r, operand));
                Taking::PassOn(result(operand).into_iter().chain(loop_body).collect())
            }
            OpKind::OptimizationBarrier => Taking::PassOn(result(operand).into_iter().collect()),
            OpKind::Call => {
                let argument = callee(body, user)
                    .and_then(|name| self.functions.get(name))
                    .and_then(|&f| self.region_argument(*body.ops[f].regions.first()?, operand));
                Taking::PassOn(argument.into_iter().collect())
            }
            OpKind::FuncReturn => {
                let Some(function) = data.parent.and_then(|b| body.parent_op(b)) else {
                    return Taking::Misuse;
                };
                if Some(function) == self.entry {
                    return Taking::Escape;
                }
                let results = self.calls.get(&function).map_or(&[][..], Vec::as_slice);
                Taking::PassOn(
                    results
                        .iter()
                        .filter_map(|&call| body.ops[call].results.get(operand).copied())
                        .collect(),
                )
            }
            OpKind::Return => {
                let Some(block) = data.parent else {
                    return Taking::Misuse;
                };
                let Some(owner) = body.parent_op(block) else {
                    return Taking::Misuse;
                };
                let owner_data = &body.ops[owner];
                let owner_result = owner_data.results.get(operand).copied();
                match owner_data.name.kind() {
                    Some(OpKind::If | OpKind::Case) => {
                        Taking::PassOn(owner_result.into_iter().collect())
                    }
                    Some(OpKind::While)
                        if owner_data.regions.get(1) == body.blocks[block].parent.as_ref() =>
                    {
                        let next = self.region_argument(owner_data.regions[1], operand);
                        Taking::PassOn(owner_result.into_iter().chain(next).collect())
                    }
                    _ => Taking::Misuse,
                }
            }
            _ => Taking::Misuse,
        }
    }

    /// The use of `value` by `user`, seen from the block that defines
    /// `value`.
    fn use_path(&self, value: Value, user: Op) -> Use {
        let body = self.body;
        let home = match body.values[value].def {
            ValueDef::Result(op, _) => body.ops[op].parent,
            ValueDef::Argument(block, _) => Some(block),
        };
        let mut path = vec![user];
        let mut op = user;
        while body.ops[op].parent != home {
            match body.ops[op].parent.and_then(|b| body.parent_op(b)) {
                Some(outer) if outer != body.module => {
                    path.push(outer);
                    op = outer;
                }
                // Not nested under the value's block (a structure error,
                // reported there): count it where it is.
                _ => {
                    path.truncate(1);
                    break;
                }
            }
        }
        path.reverse();
        Use { path }
    }

    /// The region of `op`.
    fn region_of(&self, op: Op) -> Option<Region> {
        self.body.blocks[self.body.ops[op].parent?].parent
    }

    /// A future a while condition sees: it may look, but not take. Returns
    /// the ops blamed.
    fn check_watched(&self, cx: &mut Checker, value: Value) -> Vec<Op> {
        let name = self.describe(value);
        let mut users: Vec<Op> = self.uses_of(value).iter().map(|&(user, _)| user).collect();
        users.dedup();
        for &user in &users {
            cx.report(
                user,
                format!("takes future {name} in a while loop's condition, which runs before every iteration"),
            )
            .with_hint("a future in the loop state is the body's to take: finish it in the loop body, or after the loop");
        }
        users
    }

    /// The rule itself; returns the ops blamed for taking `value` wrongly.
    fn check_taken_once(&self, cx: &mut Checker, value: Value) -> Vec<Op> {
        let body = self.body;
        let name = self.describe(value);
        let done = self.done_for(value);
        let mut counted: Vec<Use> = Vec::new();
        let mut wrong = false;
        let mut blamed: Vec<Op> = Vec::new();
        for &(user, operand) in self.uses_of(value) {
            // One error per op, however many of its operands are the future.
            if blamed.contains(&user) {
                continue;
            }
            let found = self.use_path(value, user);
            let holder = found.path[..found.path.len() - 1]
                .iter()
                .rev()
                .copied()
                .find(|&op| !matches!(body.ops[op].name.kind(), Some(OpKind::If | OpKind::Case)));
            if let Some(holder) = holder {
                wrong = true;
                blamed.push(user);
                let holder_name = body.ops[holder].name.as_str();
                if body.ops[holder].name.kind() == Some(OpKind::While) {
                    cx.report(
                        user,
                        format!("takes future {name} from outside the enclosing '{holder_name}', which may run it more than once"),
                    )
                    .with_hint(format!("carry {name} in the loop state (an operand of the while), or finish it before the loop"));
                } else {
                    cx.report(
                        user,
                        format!("takes future {name} from outside the enclosing '{holder_name}'"),
                    )
                    .with_hint(format!("a region that may run more than once cannot finish a future; finish {name} before '{holder_name}'"));
                }
                continue;
            }
            match self.taking(value, user, operand) {
                Taking::Finish | Taking::PassOn(_) => counted.push(found),
                Taking::Ignore => {}
                Taking::Escape => {
                    wrong = true;
                    blamed.push(user);
                    cx.report(
                        user,
                        format!("returns future {name} from the entry function, where nothing can finish it"),
                    )
                    .with_hint(format!("add {done} that takes {name}, and return its result"));
                }
                Taking::Misuse => {
                    wrong = true;
                    blamed.push(user);
                    cx.report(
                        user,
                        format!("takes future {name}, but only a done may finish a future"),
                    )
                    .with_hint(format!("finish it with {done} and use the done's result; a future may also be passed on through while loop state, optimization_barrier, a call or an if/case result"));
                }
            }
        }
        if wrong {
            return blamed;
        }
        match self.count(&counted, 0) {
            Err(branching) => {
                let op_name = body.ops[branching].name.as_str().to_string();
                cx.report(
                    branching,
                    format!("takes future {name} in some branches but not in others"),
                )
                .with_hint(format!(
                    "take {name} in every branch (once), or in none and finish it after '{op_name}'"
                ));
                vec![branching]
            }
            Ok(0) => {
                self.report_unfinished(cx, value, &name, &done);
                Vec::new()
            }
            Ok(1) => Vec::new(),
            Ok(_) => self
                .report_taken_twice(cx, &counted, &name)
                .into_iter()
                .collect(),
        }
    }

    /// How many times one run takes the future: uses one after another add
    /// up; branches of an if/case must agree, and count once. `Err` names an
    /// if/case whose branches disagree.
    fn count(&self, uses: &[Use], depth: usize) -> Result<usize, Op> {
        let mut total = 0;
        let mut holders: Vec<Op> = Vec::new();
        for found in uses {
            match found.path.get(depth + 1) {
                None => total += 1,
                Some(_) => {
                    let holder = found.path[depth];
                    if !holders.contains(&holder) {
                        holders.push(holder);
                    }
                }
            }
        }
        for holder in holders {
            let inside: Vec<&Use> = uses
                .iter()
                .filter(|u| u.path[depth] == holder && u.path.len() > depth + 1)
                .collect();
            let mut per_branch = Vec::new();
            for &region in &self.body.ops[holder].regions {
                let branch: Vec<Use> = inside
                    .iter()
                    .filter(|u| self.region_of(u.path[depth + 1]) == Some(region))
                    .map(|&u| u.clone())
                    .collect();
                per_branch.push(self.count(&branch, depth + 1)?);
            }
            match per_branch.split_first() {
                Some((first, rest)) if rest.iter().all(|c| c == first) => total += first,
                Some(_) => return Err(holder),
                None => {}
            }
        }
        Ok(total)
    }

    fn report_unfinished(&self, cx: &mut Checker, value: Value, name: &str, done: &str) {
        let body = self.body;
        let owner = self.owner(value);
        let (what, hint) = match body.values[value].def {
            ValueDef::Result(..) => (
                match call_target(body, owner).filter(|_| is_jax_start(body, owner)) {
                    Some(target) => format!("result {name} of @{target}"),
                    None => format!("result {name}"),
                },
                format!("add {done} that takes {name}"),
            ),
            ValueDef::Argument(..) if body.ops[owner].name.kind() == Some(OpKind::While) => (
                format!("loop-body argument {name}"),
                format!(
                    "add {done} that takes {name} in the loop body, or return {name} to the next iteration"
                ),
            ),
            ValueDef::Argument(..) => (
                format!("argument {name}"),
                format!("add {done} that takes {name}, or return it to the caller"),
            ),
        };
        cx.report(owner, format!("{what} is a future with no matching done"))
            .with_hint(hint);
    }

    /// A future taken twice on one run: the error goes to the first use
    /// after the first one that is not in another branch than it.
    fn report_taken_twice(&self, cx: &mut Checker, uses: &[Use], name: &str) -> Option<Op> {
        let mut sorted: Vec<&Use> = uses.iter().collect();
        sorted.sort_by_key(|u| self.order.get(&u.user()).copied());
        let (first, rest) = sorted.split_first()?;
        let second = rest.iter().find(|u| !self.exclusive(first, u))?;
        let body = self.body;
        let first_user = first.user();
        let first_name = body.ops[first_user].name.as_str();
        let first_result = body.ops[first_user]
            .results
            .first()
            .map(|&r| self.describe(r));
        let by = match &first_result {
            Some(result) => format!("'{first_name}' (defining {result})"),
            None => format!("'{first_name}'"),
        };
        let finishes = |op: Op| {
            matches!(
                body.ops[op].name.kind(),
                Some(kind) if kind == OpKind::AsyncDone
                    || ExplicitPair::of(kind).is_some_and(|pair| pair.done == kind)
                    || (kind == OpKind::CustomCall && call_target(body, op).is_some_and(is_jax_done))
            )
        };
        let hint = match first_result {
            Some(result) if finishes(first_user) && finishes(second.user()) => format!(
                "a future is finished by exactly one done; use {result}, the first done's result"
            ),
            _ => "a future is taken exactly once: by its done, or passed on once through while loop state, optimization_barrier, a call or an if/case result".to_string(),
        };
        cx.report(
            second.user(),
            format!("takes future {name}, which {by} already took"),
        )
        .with_hint(hint);
        Some(second.user())
    }

    /// Whether two uses sit in different branches of one if/case (so no run
    /// reaches both).
    fn exclusive(&self, a: &Use, b: &Use) -> bool {
        for depth in 0.. {
            match (a.path.get(depth), b.path.get(depth)) {
                (Some(x), Some(y)) if x == y => {
                    let (Some(&inner_a), Some(&inner_b)) =
                        (a.path.get(depth + 1), b.path.get(depth + 1))
                    else {
                        return false;
                    };
                    if self.region_of(inner_a) != self.region_of(inner_b) {
                        return true;
                    }
                }
                _ => return false,
            }
        }
        false
    }

    /// `value` as written (`%1`), or by position.
    fn describe(&self, value: Value) -> String {
        if let Some(name) = self.body.value_name(value) {
            return name.to_string();
        }
        match self.body.values[value].def {
            ValueDef::Result(_, index) => format!("#{index}"),
            ValueDef::Argument(_, index) => format!("#{index}"),
        }
    }

    /// The done that finishes `value`, as a reader would write it, with its
    /// article: "a `stablehlo.async_done`", or "a done" when its start cannot
    /// be told (a function argument).
    fn done_for(&self, value: Value) -> String {
        let body = self.body;
        let done =
            self.origins
                .source(value)
                .and_then(|start| match body.ops[start].name.kind()? {
                    OpKind::AsyncStart => Some("stablehlo.async_done".to_string()),
                    OpKind::CustomCall => call_target(body, start).map(|target| {
                        format!(
                            "stablehlo.custom_call @{}-done",
                            target.trim_end_matches("-start")
                        )
                    }),
                    kind => ExplicitPair::of(kind).map(|pair| pair.done.name().to_string()),
                });
        match done {
            Some(done) => format!("a `{done}`"),
            None => "a done".to_string(),
        }
    }
}

fn callee(body: &Body, call: Op) -> Option<&str> {
    match body.attribute(call, "callee")? {
        Attribute::SymbolRef(path) => path.last().map(String::as_str),
        _ => None,
    }
}

fn call_target(body: &Body, op: Op) -> Option<&str> {
    body.attribute(op, "call_target_name")
        .and_then(Attribute::as_str)
}

fn is_jax_start(body: &Body, op: Op) -> bool {
    body.ops[op].name.kind() == Some(OpKind::CustomCall)
        && call_target(body, op).is_some_and(|t| CUSTOM_CALL_STARTS.contains(&t))
}

fn is_jax_done(target: &str) -> bool {
    target.strip_suffix("-done").is_some_and(|kind| {
        CUSTOM_CALL_STARTS
            .iter()
            .any(|s| s.strip_suffix("-start") == Some(kind))
    })
}

#[cfg(test)]
mod tests {
    const PERMUTE: &str = r#"<{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}>"#;
    const FUTURE: &str = "!stablehlo.future<tensor<2xf32>>";

    /// The verifier's messages for `text`, where `START` stands for a
    /// collective_permute_start of `%x` and `FUTURE` for its type.
    fn errors(text: &str) -> Vec<String> {
        let start = format!(
            r#""stablehlo.collective_permute_start"(%x) {PERMUTE} : (tensor<2xf32>) -> {FUTURE}"#
        );
        let text = text.replace("START", &start).replace("FUTURE", FUTURE);
        let body = crate::text::parse(&text).unwrap_or_else(|d| panic!("{}", d.render("t", &text)));
        match crate::verify(&body) {
            Ok(()) => Vec::new(),
            Err(errors) => errors.into_iter().map(|e| e.message).collect(),
        }
    }

    #[test]
    fn one_done_in_each_branch_takes_a_future_once() {
        let found = errors(
            r#"func.func @main(%x: tensor<2xf32>, %p: tensor<i1>) -> tensor<2xf32> {
  %f = START
  %r = "stablehlo.if"(%p) ({
    %a = "stablehlo.collective_permute_done"(%f) : (FUTURE) -> tensor<2xf32>
    stablehlo.return %a : tensor<2xf32>
  }, {
    %b = "stablehlo.collective_permute_done"(%f) : (FUTURE) -> tensor<2xf32>
    stablehlo.return %b : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}"#,
        );
        assert_eq!(found, Vec::<String>::new());
    }

    #[test]
    fn a_done_after_a_branch_that_finished_it_is_a_second_take() {
        let found = errors(
            r#"func.func @main(%x: tensor<2xf32>, %p: tensor<i1>) -> tensor<2xf32> {
  %f = START
  %r = "stablehlo.if"(%p) ({
    %a = "stablehlo.collective_permute_done"(%f) : (FUTURE) -> tensor<2xf32>
    stablehlo.return %a : tensor<2xf32>
  }, {
    %b = "stablehlo.collective_permute_done"(%f) : (FUTURE) -> tensor<2xf32>
    stablehlo.return %b : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  %c = "stablehlo.collective_permute_done"(%f) : (FUTURE) -> tensor<2xf32>
  return %c : tensor<2xf32>
}"#,
        );
        assert_eq!(
            found,
            [
                "'stablehlo.collective_permute_done' op takes future %f, which 'stablehlo.collective_permute_done' (defining %a) already took"
            ]
        );
    }

    #[test]
    fn futures_pass_through_calls_barriers_and_branch_results() {
        let found = errors(
            r#"func.func private @finish(%f: FUTURE) -> tensor<2xf32> {
  %r = "stablehlo.collective_permute_done"(%f) : (FUTURE) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func private @start(%x: tensor<2xf32>) -> FUTURE {
  %f = START
  return %f : FUTURE
}
func.func @main(%x: tensor<2xf32>, %p: tensor<i1>) -> tensor<2xf32> {
  %f = call @start(%x) : (tensor<2xf32>) -> FUTURE
  %g, %y = stablehlo.optimization_barrier %f, %x : FUTURE, tensor<2xf32>
  %h = "stablehlo.if"(%p) ({
    stablehlo.return %g : FUTURE
  }, {
    %n = START
    %d = "stablehlo.collective_permute_done"(%g) : (FUTURE) -> tensor<2xf32>
    stablehlo.return %n : FUTURE
  }) : (tensor<i1>) -> FUTURE
  %r = call @finish(%h) : (FUTURE) -> tensor<2xf32>
  return %r : tensor<2xf32>
}"#,
        );
        assert_eq!(found, Vec::<String>::new());
    }

    #[test]
    fn a_call_of_a_function_returning_a_future_must_take_the_result() {
        let found = errors(
            r#"func.func private @start(%x: tensor<2xf32>) -> FUTURE {
  %f = START
  return %f : FUTURE
}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %f = call @start(%x) : (tensor<2xf32>) -> FUTURE
  return %x : tensor<2xf32>
}"#,
        );
        assert_eq!(
            found,
            ["'func.call' op result %f is a future with no matching done"]
        );
    }

    #[test]
    fn a_jax_start_carried_around_a_loop_is_followed() {
        let found = errors(
            r#"func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %s = stablehlo.custom_call @collective-permute-start(%x) {mhlo.frontend_attributes = {async_collective_config = "{}"}} : (tensor<2xf32>) -> tensor<2xf32>
  %i, %carried = stablehlo.while(%k = %zero, %c = %s) : tensor<i32>, tensor<2xf32>
  cond {
    %three = stablehlo.constant dense<3> : tensor<i32>
    %more = stablehlo.compare LT, %k, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %more : tensor<i1>
  } do {
    %received = stablehlo.custom_call @collective-permute-done(%c) : (tensor<2xf32>) -> tensor<2xf32>
    %next = stablehlo.custom_call @collective-permute-start(%received) {mhlo.frontend_attributes = {async_collective_config = "{}"}} : (tensor<2xf32>) -> tensor<2xf32>
    stablehlo.return %k, %next : tensor<i32>, tensor<2xf32>
  }
  return %carried : tensor<2xf32>
}"#,
        );
        assert_eq!(
            found,
            [
                "'func.return' op returns future %carried from the entry function, where nothing can finish it"
            ]
        );
    }
}
