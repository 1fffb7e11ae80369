//! Point-to-point transfers and feeds: `send` / `send-done`, `recv` /
//! `recv-done`, `infeed` and `outfeed`.
//!
//! Values, as XLA shapes them:
//! - `send` → `(data, u32[] context, token[])`; it deposits its data in the
//!   grid's mailbox ([`crate::devices::channels`]) at once and never waits;
//! - `send-done` → `token[]`;
//! - `recv` → `(data, u32[] context, token[])`: it *posts* a receive and
//!   returns at once; its context holds the receive's ticket and its data
//!   slot is zeros (nothing reads it but its done);
//! - `recv-done` → `(data, token[])`: it waits for the posted receive's
//!   message. Posting at the recv and waiting at the done lets a device
//!   post its recvs before its sends, as XLA's pipelines order them,
//!   without deadlocking.
//!
//! Routing: with `frontend_attributes={_xla_send_recv_source_target_pairs=
//! "{{0,1},…}"}` a send goes to each pair's target whose source is this
//! device and a recv takes from the pair whose target is this device (a
//! recv no pair targets gets zeros, as collective-permute does); the ids are
//! partition ids with a channel id above 0, else replica ids (the
//! collective-permute rule). Without pairs a channel is one FIFO shared by
//! the whole grid, as in the StableHLO interpreter. `is_host_transfer`
//! changes nothing: the host is not modelled, and the StableHLO
//! interpreter's tests use host transfers between processes.
//!
//! On one device (no grid) a send or recv is an error: its peer is another
//! device. `infeed` takes its values from the grid's infeed queues
//! ([`crate::devices::feeds`]), and a single device has none; `outfeed`
//! collects its values in the evaluation, on a grid or not.

use weft_ir::attrs::Attrs;
use weft_ir::{Instr, Opcode, Shape};

use super::instruction::{describe_shape, describe_value_shape};
use super::{Evaluator, RunError};
use crate::devices::DeviceContext;
use crate::devices::channels::{Route, Ticket, parse_source_target_pairs};
use crate::devices::groups::{DeviceId, GroupMode};
use crate::numbers::{Numbers, decode, encode};
use crate::tensor::{Tensor, Value};

/// The frontend attribute that routes a send or recv by pairs.
pub(crate) const SOURCE_TARGET_PAIRS: &str = "_xla_send_recv_source_target_pairs";

/// The context of a recv that no pair sends to: its done yields zeros.
const NO_SENDER: u64 = u32::MAX as u64;

impl Evaluator<'_> {
    /// `send`, `send-done`, `recv`, `recv-done`, `infeed` or `outfeed` on
    /// `arguments`.
    pub(crate) fn transfer(
        &mut self,
        instr: Instr,
        arguments: Vec<Value>,
    ) -> Result<Value, RunError> {
        match self.module.instr(instr).opcode {
            Opcode::Send => self.send(instr, arguments),
            Opcode::SendDone => Ok(Value::Token),
            Opcode::Recv => self.post_recv(instr),
            Opcode::RecvDone => self.finish_recv(instr, arguments),
            Opcode::Infeed => self.infeed(instr),
            Opcode::Outfeed => {
                let data = arguments
                    .into_iter()
                    .next()
                    .ok_or_else(|| self.error(instr, "outfeed without its data"))?;
                self.outfeed.push(data);
                Ok(Value::Token)
            }
            other => Err(self.error(instr, format!("{} is not a transfer", other.name()))),
        }
    }

    /// The channel of a send or recv (0 when it has none).
    fn channel(&self, instr: Instr) -> i64 {
        match &self.module.instr(instr).attrs {
            Attrs::SendRecv { channel_id, .. } => channel_id.unwrap_or(0),
            _ => 0,
        }
    }

    /// This evaluator's device, or the error that `what` needs one.
    fn grid_device(&self, instr: Instr, what: &str) -> Result<DeviceContext, RunError> {
        self.device.clone().ok_or_else(|| {
            self.error(
                instr,
                format!(
                    "{what} on channel {} needs a grid of devices: its peer is another device (run the program on several devices, e.g. within interpreter.run_parallel)",
                    self.channel(instr)
                ),
            )
        })
    }

    fn send(&mut self, instr: Instr, arguments: Vec<Value>) -> Result<Value, RunError> {
        let device = self.grid_device(instr, "a send")?;
        let data = arguments
            .into_iter()
            .next()
            .ok_or_else(|| self.error(instr, "send without its data"))?;
        if let Some(clock) = self.clock.as_mut() {
            clock.charge_cpu();
        }
        let sent = self.now();
        for route in self.routes(instr, &device, Direction::Send)? {
            device
                .channels
                .send(route, data.clone(), sent)
                .map_err(|message| self.error(instr, message))?;
        }
        Ok(Value::Tuple(vec![data, context(0), Value::Token]))
    }

    fn post_recv(&mut self, instr: Instr) -> Result<Value, RunError> {
        let device = self.grid_device(instr, "a recv")?;
        let routes = self.routes(instr, &device, Direction::Receive)?;
        let ticket = match routes.as_slice() {
            [] => NO_SENDER,
            [route] => u64::from(
                device
                    .channels
                    .post_receive(*route)
                    .map_err(|message| self.error(instr, message))?
                    .0,
            ),
            _ => {
                return Err(self.error(
                    instr,
                    format!(
                        "{} of its source-target pairs send to device {}; a recv receives from one",
                        routes.len(),
                        device.grid.id(device.id)
                    ),
                ));
            }
        };
        let data_shape = self.element_shape(instr, self.module.shape_of(instr), 0)?;
        let placeholder = self.zeros_of(instr, data_shape)?;
        Ok(Value::Tuple(vec![
            placeholder,
            context(ticket),
            Value::Token,
        ]))
    }

    fn finish_recv(&mut self, instr: Instr, arguments: Vec<Value>) -> Result<Value, RunError> {
        let device = self.grid_device(instr, "a recv-done")?;
        let ticket = match arguments.first() {
            Some(Value::Tuple(slots)) => {
                slots
                    .get(1)
                    .and_then(Value::as_tensor)
                    .and_then(|t| match decode(t) {
                        Numbers::Unsigned(v) => v.first().copied(),
                        _ => None,
                    })
            }
            _ => None,
        }
        .ok_or_else(|| self.error(instr, "the recv-done's operand is not a recv's value"))?;
        let data_shape = self.element_shape(instr, self.module.shape_of(instr), 0)?;
        let data = if ticket == NO_SENDER {
            self.zeros_of(instr, data_shape)?
        } else {
            if let Some(clock) = self.clock.as_mut() {
                clock.charge_cpu();
            }
            let arrived = self.now();
            let me = device.grid.id(device.id);
            let source = device.channels.source_of(Ticket(ticket as u32));
            let what = self.error(instr, "").instruction.unwrap_or_default();
            let received = device.channels.receive(Ticket(ticket as u32), me, &what);
            let message = match received {
                Ok(message) => message,
                // A receive that timed out is part of a deadlock or a missing
                // send: the report shows what every device waits at (this
                // device keeps its entry, so every report agrees).
                Err(message) if !message.starts_with("stopped because") => {
                    return Err(self.error(
                        instr,
                        format!(
                            "{}: {message}.{}\n{}",
                            crate::devices::NO_MESSAGE,
                            crate::devices::EVERY_DEVICE,
                            device.fabric.device_states()
                        ),
                    ));
                }
                Err(message) => return Err(self.error(instr, message)),
            };
            let data = message.data;
            // The link model: the data arrives a transfer time after it
            // was sent.
            let bytes = match &data {
                Value::Tensor(tensor) => tensor.bytes.len(),
                _ => 0,
            };
            let sent = if self
                .clock
                .as_ref()
                .is_some_and(|c| c.timing().is_modelled())
            {
                message.clock
            } else {
                message.sent.saturating_duration_since(device.origin)
            };
            let from = source.unwrap_or(me);
            let transfer = device.transfer_time(
                weft_cost::Collective::Permute(&[(from, me)]),
                bytes as f64,
                &[from, me],
            );
            let data_arrived = sent.saturating_add(transfer);
            self.transfer_until(instr, data_arrived)?;
            let met = arrived.max(sent);
            let transfer = data_arrived.saturating_sub(met);
            let ready = self.now().max(met + transfer);
            let occurrence = self.next_occurrence(instr);
            self.record_collective(
                &device,
                crate::devices::timeline::CollectiveRecord {
                    instr,
                    occurrence,
                    group: 0,
                    peers: source.into_iter().chain([me]).collect(),
                    bytes: bytes as f64,
                    arrived,
                    met,
                    transfer,
                    host: std::time::Duration::ZERO,
                    ready,
                    asynchronous: device.stream.is_none(),
                },
            );
            let expected = describe_shape(self.module, data_shape);
            if describe_value_shape(&data) != expected {
                return Err(self.error(
                    instr,
                    format!(
                        "received {} but receives {expected}: its send sends another shape",
                        data.describe()
                    ),
                ));
            }
            data
        };
        Ok(Value::Tuple(vec![data, Value::Token]))
    }

    /// Where a send on this device goes, or where a recv takes from.
    fn routes(
        &self,
        instr: Instr,
        device: &DeviceContext,
        direction: Direction,
    ) -> Result<Vec<Route>, RunError> {
        let channel = self.channel(instr);
        let pairs_text = self
            .module
            .instr(instr)
            .common()
            .frontend_attributes
            .as_ref()
            .and_then(|attributes| attributes.get(SOURCE_TARGET_PAIRS));
        let Some(text) = pairs_text else {
            return Ok(vec![Route::Channel(channel)]);
        };
        let pairs = parse_source_target_pairs(text).ok_or_else(|| {
            self.error(
                instr,
                format!("cannot read {SOURCE_TARGET_PAIRS}=\"{text}\" (expected {{{{0,1}},…}})"),
            )
        })?;
        let grid = device.grid;
        // The pairs index the devices of this device's line: its replica's
        // partitions, or its partition's replicas.
        let by_partition = GroupMode::of_exchange(Some(channel)) == GroupMode::CrossPartition;
        let (me, line_length, kind) = if by_partition {
            (device.id.partition, grid.partitions, "partition")
        } else {
            (device.id.replica, grid.replicas, "replica")
        };
        let device_at = |index: i64| -> Result<usize, RunError> {
            if index < 0 || index as usize >= line_length {
                return Err(self.error(
                    instr,
                    format!(
                        "{kind} {index} of its source-target pairs is outside the grid's {line_length} {kind}(s)"
                    ),
                ));
            }
            let index = index as usize;
            Ok(grid.id(if by_partition {
                DeviceId {
                    replica: device.id.replica,
                    partition: index,
                }
            } else {
                DeviceId {
                    replica: index,
                    partition: device.id.partition,
                }
            }))
        };
        let mut routes = Vec::new();
        for (source, target) in pairs {
            let end = match direction {
                Direction::Send => source,
                Direction::Receive => target,
            };
            if end == me as i64 {
                routes.push(Route::Pair {
                    channel,
                    source: device_at(source)?,
                    target: device_at(target)?,
                });
            }
        }
        Ok(routes)
    }

    /// `infeed`: its data from the grid's infeed queues — the next value
    /// when it has the whole data shape, else one value per element of a
    /// tuple data shape (the StableHLO interpreter queues one array per
    /// infeed result).
    fn infeed(&mut self, instr: Instr) -> Result<Value, RunError> {
        let Some(device) = self.device.clone() else {
            return Err(self.error(
                instr,
                "infeed needs values fed by a host, and a single-device run has no infeed queue (interpreter.run_parallel's `infeed` functions give one)",
            ));
        };
        let id = device.grid.id(device.id);
        let data_shape = self.element_shape(instr, self.module.shape_of(instr), 0)?;
        let matches = |value: &Value, shape: Shape| {
            describe_value_shape(value) == describe_shape(self.module, shape)
        };
        if let Some(whole) = device.infeed.take_if(id, |v| matches(v, data_shape)) {
            return Ok(Value::Tuple(vec![whole, Value::Token]));
        }
        let elements = match self.module.shapes.tuple_elements(data_shape) {
            Some(elements) => elements.to_vec(),
            None => vec![data_shape],
        };
        let mut values = Vec::with_capacity(elements.len());
        for element in elements {
            let value = device.infeed.take(id).ok_or_else(|| {
                self.error(
                    instr,
                    format!("the infeed queue of device {id} is empty: nothing more was fed"),
                )
            })?;
            if !matches(&value, element) {
                return Err(self.error(
                    instr,
                    format!(
                        "the value fed is {} but this infeed takes {}",
                        value.describe(),
                        describe_shape(self.module, element)
                    ),
                ));
            }
            values.push(value);
        }
        let data = if self.module.shapes.tuple_elements(data_shape).is_some() {
            Value::Tuple(values)
        } else {
            values.pop().expect("one element")
        };
        Ok(Value::Tuple(vec![data, Value::Token]))
    }

    /// Element `index` of the tuple shape `shape`.
    fn element_shape(&self, instr: Instr, shape: Shape, index: usize) -> Result<Shape, RunError> {
        self.module
            .shapes
            .tuple_elements(shape)
            .and_then(|elements| elements.get(index).copied())
            .ok_or_else(|| self.error(instr, format!("its shape has no tuple element {index}")))
    }

    /// A value of zeros (and tokens) of `shape`.
    fn zeros_of(&self, instr: Instr, shape: Shape) -> Result<Value, RunError> {
        if let Some(elements) = self.module.shapes.tuple_elements(shape) {
            return elements
                .iter()
                .map(|&element| self.zeros_of(instr, element))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Tuple);
        }
        match self.module.shapes.as_array(shape) {
            Some(array) => Ok(Value::Tensor(Tensor::zeros(array.elem, &array.dims))),
            None if self.module.shapes.get(shape) == &weft_ir::ShapeData::Token => Ok(Value::Token),
            None => Err(self.error(instr, "data of a shape the runtime cannot make")),
        }
    }
}

/// Which end of a route a device is.
#[derive(Clone, Copy)]
enum Direction {
    Send,
    Receive,
}

/// A `u32[]` context holding `value`.
fn context(value: u64) -> Value {
    Value::Tensor(encode(
        weft_ir::ElementType::U32,
        &[],
        &Numbers::Unsigned(vec![value]),
    ))
}

#[cfg(test)]
mod tests {
    use crate::devices::{Grid, GridOptions, Link, run_grid};
    use crate::numbers::{Numbers, decode};
    use crate::tensor::Value;

    fn module(text: &str) -> weft_ir::Module {
        weft_ir::text::parse(text).unwrap_or_else(|d| panic!("{}", d.render("test", text)))
    }

    /// Sends `{1, 2}` on channel 1 and receives it back on the same device.
    const LOOPBACK: &str = r#"HloModule loopback

ENTRY %main () -> s32[2] {
  %ordering = token[] after-all()
  %data = s32[2] constant({1, 2})
  %send = (s32[2], u32[], token[]) send(s32[2] %data, token[] %ordering), channel_id=1
  %recv = (s32[2], u32[], token[]) recv(token[] %ordering), channel_id=1
  %send-done = token[] send-done((s32[2], u32[], token[]) %send), channel_id=1
  %recv-done = (s32[2], token[]) recv-done((s32[2], u32[], token[]) %recv), channel_id=1
  ROOT %received = s32[2] get-tuple-element((s32[2], token[]) %recv-done), index=0
}
"#;

    fn one_device() -> (Grid, GridOptions) {
        let grid = Grid {
            replicas: 1,
            partitions: 1,
        };
        let options = GridOptions {
            timeout: std::time::Duration::from_millis(200),
            link: Link::UNPACED,
            interconnect: None,
            ..GridOptions::default()
        };
        (grid, options)
    }

    #[test]
    fn a_send_without_a_grid_is_an_error_naming_its_channel() {
        let error = crate::evaluate(&module(LOOPBACK), Vec::new()).unwrap_err();
        assert_eq!(error.instruction.as_deref(), Some("main/%send"));
        assert!(
            error
                .message
                .starts_with("a send on channel 1 needs a grid of devices"),
            "{}",
            error.message
        );
    }

    #[test]
    fn a_device_receives_what_it_sent_itself() {
        let (grid, options) = one_device();
        let evaluations = run_grid(&module(LOOPBACK), grid, vec![Vec::new()], options).unwrap();
        let received = evaluations[0].result.as_tensor().unwrap();
        assert_eq!(decode(received), Numbers::Signed(vec![1, 2]));
    }

    #[test]
    fn a_message_of_another_shape_is_an_error() {
        let text = LOOPBACK
            .replace("%recv = (s32[2]", "%recv = (s32[3]")
            .replace("recv-done((s32[2]", "recv-done((s32[3]")
            .replace("%recv-done = (s32[2]", "%recv-done = (s32[3]")
            .replace("() -> s32[2]", "() -> s32[3]")
            .replace(
                "ROOT %received = s32[2] get-tuple-element((s32[2]",
                "ROOT %received = s32[3] get-tuple-element((s32[3]",
            );
        let (grid, options) = one_device();
        let error = run_grid(&module(&text), grid, vec![Vec::new()], options).unwrap_err();
        assert!(
            error
                .message
                .contains("received s32[2] but receives s32[3]"),
            "{error}"
        );
    }

    #[test]
    fn outfeed_values_are_collected_in_order() {
        let m = module(
            r#"HloModule feeds

ENTRY %main () -> token[] {
  %ordering = token[] after-all()
  %one = s32[] constant(1)
  %two = s32[] constant(2)
  %first = token[] outfeed(s32[] %one, token[] %ordering)
  ROOT %second = token[] outfeed(s32[] %two, token[] %first)
}
"#,
        );
        let evaluation = crate::run(&m, Vec::new()).unwrap();
        let fed: Vec<Numbers> = evaluation
            .outfeed
            .iter()
            .map(|v| decode(v.as_tensor().unwrap()))
            .collect();
        assert_eq!(
            fed,
            vec![Numbers::Signed(vec![1]), Numbers::Signed(vec![2])]
        );
        assert_eq!(evaluation.result, Value::Token);
    }
}
