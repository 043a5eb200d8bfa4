//! Fused elementwise expressions (`bc_expr`): a chain of ops over broadcast
//! inputs, run in one pass over cache-sized blocks, so that intermediates
//! never reach memory.
//!
//! `where(x > 0, x, 0.1 * x)` reads `x` once and writes its result once. The
//! result is bit for bit that of the same ops run one by one
//! (`x.gt(0)?.where_cond(..)`): every node has the dtype, rounding and errors
//! of its eager op, numbers are wrapped numbers as in Python (the weakest
//! tier of type promotion, as [`Scalar`] operands are), and nothing is fused
//! into a multiply-add that the eager chain would not do.
//!
//! An [`Expr`] is a list of nodes: inputs, numbers and ops of the op table
//! called by name ([`BinaryOp::name`], [`UnaryOp::name`], or `where`,
//! `clamp`, `lerp`, `addcmul`, `addcdiv`), each on nodes made before it. Its
//! value is its last node. Build one with [`Expr::new`] and the builders
//! ([`Expr::input`], [`Expr::number`], [`Expr::call`]), or parse one in
//! Python's syntax with [`Expr::parse`]:
//!
//! ```
//! use bcast::expr::Expr;
//! use bcast::Tensor;
//!
//! // where(x > 0, x, 0.1 * x), built node by node.
//! let mut e = Expr::new(1)?;
//! let x = e.input(0)?;
//! let zero = e.number(0)?;
//! let pos = e.call("gt", &[x, zero])?;
//! let slope = e.number(0.1)?;
//! let neg = e.call("mul", &[slope, x])?;
//! e.call("where", &[pos, x, neg])?;
//!
//! let t = Tensor::from_slice(&[-10.0f32, 0.0, 2.0], &[3])?;
//! assert_eq!(e.eval(&[&t])?.to_vec::<f32>()?, [-1.0, 0.0, 2.0]);
//! # Ok::<(), bcast::Error>(())
//! ```
//!
//! A unary op with parameters takes them as trailing number nodes
//! (`hardtanh(x, -2, 2)`); `addcmul` and `addcdiv` take `value` as an
//! optional fourth number node; `clamp`'s bounds may be numbers or nodes;
//! `add` and `sub` take no alpha. Building checks names, operand counts and
//! node numbers; dtype errors come at evaluation, with the eager op's text.
//!
//! [`Expr::eval`] and [`Expr::eval_out`] run on the calling thread's current
//! context, like every op ([`Context::scope`]); [`Context::expr_eval`] and
//! [`Context::expr_eval_out`] run on a given context from any thread.
//! Evaluation needs `&self`, so one expression may be evaluated by many
//! threads at once (it is `Sync`); building needs `&mut self`.
//!
//! [`Scalar`]: crate::Scalar
//! [`BinaryOp::name`]: crate::BinaryOp::name
//! [`UnaryOp::name`]: crate::UnaryOp::name

use std::ffi::CString;
use std::fmt;
use std::ptr::{self, NonNull};

use bcast_sys as sys;

use crate::context::Context;
use crate::error::{call, check_default, Error, ErrorCode, Result};
use crate::ops::BinaryOp;
use crate::tensor::{new_tensor, Tensor, TensorRef};
use crate::types::Scalar;
use crate::unary::UnaryOp;

/// The most nodes an expression may have (`BC_EXPR_MAX_NODES`).
pub const MAX_NODES: usize = sys::BC_EXPR_MAX_NODES;

/// A node of an [`Expr`]: its number in the expression. Only meaningful
/// for the expression that made it; the library rejects a number that does
/// not exist yet there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Node(i32);

impl Node {
    /// The node's number (0 for the first node made).
    pub fn index(self) -> i32 {
        self.0
    }
}

/// A fused elementwise expression over a fixed number of inputs; freed on
/// drop. See the [module documentation](self).
pub struct Expr {
    ptr: NonNull<sys::bc_expr>,
}

// SAFETY: Send — the handle has no thread affinity: the library keeps no
// per-thread state in it, and builders record errors in the calling thread's
// slot, whichever thread that is.
unsafe impl Send for Expr {}
// SAFETY: Sync — `&Expr` reaches the library only through evaluation and
// bc_expr_num_nodes; the header allows several threads to evaluate one
// expression at once (its cache is behind a mutex). Builders, which the
// header forbids while another thread builds or evaluates, need `&mut Expr`.
unsafe impl Sync for Expr {}

impl Expr {
    /// A new expression with no nodes over `ninputs` inputs (0 to
    /// [`MAX_NODES`]).
    pub fn new(ninputs: usize) -> Result<Expr> {
        let mut raw = ptr::null_mut();
        // SAFETY: a valid out pointer; on success it receives a new handle
        // that we own.
        check_default(unsafe { sys::bc_expr_new(ninputs, &mut raw) })?;
        // SAFETY: as above, non-NULL on success.
        Ok(unsafe { Expr::from_raw(raw) })
    }

    /// Parses an expression in Python's syntax over the inputs `names`
    /// (input `i` is `names[i]`): numbers (`2`, `0.1`, `1e-3`, `True`,
    /// `False`), the names, parentheses, calls of the op table's names, and
    /// the operators by Python's precedence (`|`, `^`, `&`, comparisons,
    /// `<<` `>>`, `+` `-`, `*` `/` `//` `%`, unary `-` `+` `~`, `**`).
    /// `/` is true division, `//` floor division, `%` remainder.
    ///
    /// ```no_run
    /// use bcast::expr::Expr;
    /// let e = Expr::parse("clamp((a - b) * c, 0, 1)", &["a", "b", "c"])?;
    /// # Ok::<(), bcast::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorCode::InvalidArgument`] with the position in the message
    /// (`"at column 7: expected ')'"`), or when `text` or a name contains
    /// a NUL.
    pub fn parse(text: &str, names: &[&str]) -> Result<Expr> {
        let text = CString::new(text)
            .map_err(|_| Error::new(ErrorCode::InvalidArgument, "expression text contains NUL"))?;
        let names = names
            .iter()
            .map(|n| CString::new(*n))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|_| Error::new(ErrorCode::InvalidArgument, "input name contains NUL"))?;
        let name_ptrs: Vec<*const std::ffi::c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let mut raw = ptr::null_mut();
        // SAFETY: NUL-terminated strings and an array of name_ptrs.len() of
        // them, all read during the call only; a valid out pointer.
        check_default(unsafe {
            sys::bc_expr_parse(text.as_ptr(), name_ptrs.as_ptr(), name_ptrs.len(), &mut raw)
        })?;
        // SAFETY: on success a new handle that we own.
        Ok(unsafe { Expr::from_raw(raw) })
    }

    /// Takes ownership of a raw handle.
    ///
    /// # Safety
    /// `raw` must be a non-NULL handle from `bc_expr_new` or
    /// `bc_expr_parse` that nothing else frees or uses afterwards.
    pub unsafe fn from_raw(raw: *mut sys::bc_expr) -> Expr {
        Expr {
            ptr: NonNull::new(raw).expect("bcast: NULL bc_expr"),
        }
    }

    /// Gives up ownership of the handle (free it with `bc_expr_free`).
    pub fn into_raw(self) -> *mut sys::bc_expr {
        let raw = self.ptr.as_ptr();
        std::mem::forget(self);
        raw
    }

    /// The raw handle, for passing to C code; it stays owned by this `Expr`.
    pub fn as_ptr(&self) -> *const sys::bc_expr {
        self.ptr.as_ptr()
    }

    /// A builder call: its status (errors from the thread's slot) and node.
    fn build(
        &mut self,
        f: impl FnOnce(*mut sys::bc_expr, *mut i32) -> sys::bc_status,
    ) -> Result<Node> {
        let mut node = -1;
        check_default(f(self.ptr.as_ptr(), &mut node))?;
        Ok(Node(node))
    }

    /// Adds a node that is input `index`.
    ///
    /// # Errors
    /// [`ErrorCode::InvalidArgument`] for an index out of range or too many
    /// nodes.
    pub fn input(&mut self, index: usize) -> Result<Node> {
        let index = i64::try_from(index).unwrap_or(i64::MAX);
        // SAFETY: a live handle that `&mut self` keeps from every other
        // call; a valid out pointer.
        self.build(|e, node| unsafe { sys::bc_expr_input(e, index, node) })
    }

    /// Adds a number node: a wrapped number, as PyTorch wraps a Python
    /// number (`2` is an int, `0.5` a float, `true` a bool).
    pub fn number(&mut self, value: impl Into<Scalar>) -> Result<Node> {
        let raw = value.into().raw();
        // SAFETY: as in input; `raw` is read during the call only.
        self.build(|e, node| unsafe { sys::bc_expr_number(e, &raw, node) })
    }

    /// Adds a node calling the op named `op` on `args`, nodes of this
    /// expression made before.
    ///
    /// # Errors
    /// [`ErrorCode::InvalidArgument`] for an unknown op, a wrong number of
    /// operands, a node that does not exist yet, or a parameter that is not
    /// a number node. Dtype errors come at evaluation.
    pub fn call(&mut self, op: &str, args: &[Node]) -> Result<Node> {
        let op = CString::new(op)
            .map_err(|_| Error::new(ErrorCode::InvalidArgument, "op name contains NUL"))?;
        let args: Vec<i32> = args.iter().map(|n| n.0).collect();
        // SAFETY: as in input; the name and args.len() node numbers are read
        // during the call only.
        self.build(|e, node| unsafe {
            sys::bc_expr_call(e, op.as_ptr(), args.as_ptr(), args.len(), node)
        })
    }

    /// [`Expr::call`] of a binary op: `op(a, b)`.
    pub fn binary(&mut self, op: BinaryOp, a: Node, b: Node) -> Result<Node> {
        self.call(op.name(), &[a, b])
    }

    /// [`Expr::call`] of a unary op with its default parameters: `op(x)`.
    pub fn unary(&mut self, op: UnaryOp, x: Node) -> Result<Node> {
        self.call(op.name(), &[x])
    }

    /// The number of nodes.
    pub fn num_nodes(&self) -> usize {
        // SAFETY: a live handle; a const getter.
        unsafe { sys::bc_expr_num_nodes(self.ptr.as_ptr()) }
    }

    /// Evaluates the expression on `inputs` (as many as it has inputs) into
    /// a new tensor of the last node's shape and dtype, on the calling
    /// thread's current context.
    ///
    /// # Errors
    /// What the first failing op of the eager chain returns, with its text;
    /// [`ErrorCode::InvalidArgument`] for a wrong input count, an empty
    /// expression, or legacy pointwise mode.
    pub fn eval(&self, inputs: &[&TensorRef]) -> Result<Tensor> {
        let ptrs: Vec<*const sys::bc_tensor> = inputs.iter().map(|t| t.as_ptr()).collect();
        let mut out = ptr::null_mut();
        // SAFETY: live handles; bc_expr_eval takes a non-const expression
        // but only evaluates it, which the header allows from several
        // threads at once (see the Sync impl); a valid out pointer.
        let result = call(|ctx| unsafe {
            sys::bc_ctx_expr_eval(ctx, self.ptr.as_ptr(), ptrs.as_ptr(), ptrs.len(), &mut out)
        });
        new_tensor(result, out)
    }

    /// Evaluates the expression into `out`, which must have the result's
    /// shape; its dtype may differ where the last op's out= form allows it.
    /// On failure `out` is unchanged.
    ///
    /// # Errors
    /// As [`Expr::eval`]; [`ErrorCode::ShapeMismatch`],
    /// [`ErrorCode::Overlap`] and [`ErrorCode::Dtype`] as the last op's
    /// out= form.
    pub fn eval_out(&self, inputs: &[&TensorRef], out: &mut TensorRef) -> Result<()> {
        let ptrs: Vec<*const sys::bc_tensor> = inputs.iter().map(|t| t.as_ptr()).collect();
        let out = out.as_mut_ptr();
        // SAFETY: as in eval; `out` is writable and borrowed exclusively.
        call(|ctx| unsafe {
            sys::bc_ctx_expr_eval_out(ctx, self.ptr.as_ptr(), ptrs.as_ptr(), ptrs.len(), out)
        })
    }
}

impl Drop for Expr {
    fn drop(&mut self) {
        // SAFETY: we own the handle; nothing borrows it any more.
        unsafe { sys::bc_expr_free(self.ptr.as_ptr()) }
    }
}

impl fmt::Debug for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Expr")
            .field("num_nodes", &self.num_nodes())
            .finish()
    }
}

/// Expression evaluation on a given context, from any thread.
impl Context {
    /// [`Expr::eval`] on this context.
    ///
    /// ```
    /// use bcast::expr::Expr;
    /// use bcast::{Context, DType, ErrorCode, Policy, Tensor};
    /// let mut ctx = Context::new()?;
    /// ctx.set_broadcast_policy(Policy::Error);
    /// let mut e = Expr::new(2)?;
    /// let (a, b) = (e.input(0)?, e.input(1)?);
    /// e.call("add", &[a, b])?;
    /// let a = Tensor::zeros(DType::Float32, &[3, 1])?;
    /// let b = Tensor::zeros(DType::Float32, &[3])?;
    /// assert_eq!(ctx.expr_eval(&e, &[&a, &b]).unwrap_err().code, ErrorCode::Policy);
    /// assert_eq!(e.eval(&[&a, &b])?.shape(), &[3, 3]);
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn expr_eval(&self, e: &Expr, inputs: &[&TensorRef]) -> Result<Tensor> {
        self.scope(|| e.eval(inputs))
    }

    /// [`Expr::eval_out`] on this context.
    pub fn expr_eval_out(
        &self,
        e: &Expr,
        inputs: &[&TensorRef],
        out: &mut TensorRef,
    ) -> Result<()> {
        self.scope(|| e.eval_out(inputs, out))
    }
}
