// Package rvdyn is a Dynamo-style dynamic binary optimizer for RISC-V
// Linux programs (RV64GC, static or dynamically linked) on x86-64 hosts.
//
// A guest program starts out interpreted. The dispatcher counts executions
// of trace-head candidates (targets of taken backward branches and of code
// cache exits); when a count exceeds the prediction delay, the next
// executing tail is recorded (NET, package net), compiled into a native
// fragment (package fragment) and placed in the code cache (package
// codecache), from where the program runs from then on. The answer is the
// same in every mode: output, exit status and retired instruction count
// match plain interpretation.
//
// Typical use:
//
//	vm, err := rvdyn.New(image, rvdyn.Options{}) // dynamo mode, defaults
//	if err != nil { ... }          // *interp.LoadError for a bad ELF
//	defer vm.Close()
//	code, err := vm.Run()          // *interp.Fault, interp.ErrLimit, or nil
//	st := vm.Stats()
//
// This package is the public API. The engine room behind it (the VM, the
// dispatcher, the compile service thread, trace selection and what
// attaches to a run) is package rvdyn/internal/engine; the types below
// are its types under their public names, so the field and method
// documentation is there (go doc rvdyn/internal/engine.Options).
package rvdyn

import (
	"rvdyn/codecache"
	"rvdyn/fragment/exit"
	"rvdyn/gcassist"
	"rvdyn/internal/engine"
	"rvdyn/internal/selection"
	"rvdyn/interp"
	"rvdyn/net"
)

// Options configures a VM: the mode, NET's delay and trace length, the
// trace selection scheme, the code cache and its policy, fragment
// optimizations, the compiler thread, the guest process (interp.Config),
// limits, listings, the perf map, the collector, the relational profiler
// session, PC sampling and value specialization. The zero value is dynamo
// mode with every default; see engine.Options for each field.
type Options = engine.Options

// DefaultOptions returns the default options, the zero Options: dynamo
// mode with the default prediction delay.
func DefaultOptions() Options { return engine.DefaultOptions() }

// A VM is one loaded guest program and the optimizer state around it:
// New, Run once, Stats, Close (see engine.VM for every method).
type VM = engine.VM

// New loads an ELF image (an RV64GC executable, static, or dynamic with
// Options.Config's sysroot for its interpreter) and prepares it to run.
// A bad image gives a *interp.LoadError; a bad option an error naming it.
func New(image []byte, opts Options) (*VM, error) { return engine.New(image, opts) }

// Stats is a run's snapshot (VM.Stats): instruction counts by where they
// ran, the dispatcher's, selector's, cache's and compiler's counters,
// times, and the top fragments; WriteTable and MarshalJSON present it.
type Stats = engine.Stats

// A Mode selects how guest code runs. The zero value is ModeDynamo.
type Mode = engine.Mode

// The modes.
const (
	// ModeDynamo interprets, predicts hot paths with NET and runs them as
	// native fragments from the code cache.
	ModeDynamo = engine.ModeDynamo
	// ModeInterp only interprets.
	ModeInterp = engine.ModeInterp
)

// ParseMode parses a mode's command-line name ("dynamo", "interp").
func ParseMode(s string) (Mode, error) { return engine.ParseMode(s) }

// Scheme is a trace selection scheme (Options.Select.Scheme; package
// rvdyn/internal/selection says how each decides a head is hot). It is
// not net.Selector, the head counters and recorder every scheme drives.
type Scheme = selection.Kind

// The selection schemes.
const (
	// SelectNET is NET: one software counter per head.
	SelectNET = selection.NET
	// SelectPath is path profile based prediction.
	SelectPath = selection.Path
	// SelectCompressor counts heads through a stratified-sampling
	// compressor.
	SelectCompressor = selection.Compressor
	// SelectRPA counts heads through a relational-profiler edge query.
	SelectRPA = selection.RPA
)

// ParseScheme parses a selection scheme's command-line name (--select:
// "net", "path", "compressor", "rpa").
func ParseScheme(s string) (Scheme, error) { return selection.ParseKind(s) }

// SelectOptions configure trace selection beyond NET's delay and trace
// length: the scheme, its compressor or query, and trace metrics.
type SelectOptions = selection.Options

// Defaults of SelectOptions and SpecializeOptions, in the notation of
// package profhw (compressors) and in instructions (periods).
const (
	// DefaultCompressor is SelectCompressor's compressor: the stratified
	// sampling paper's configuration.
	DefaultCompressor = selection.DefaultCompressor
	// DefaultRPAPeriod is SelectRPA's sampling period on conditional
	// branches.
	DefaultRPAPeriod = selection.DefaultRPAPeriod
	// DefaultRPAJumpPeriod is SelectRPA's sampling period on jumps.
	DefaultRPAJumpPeriod = selection.DefaultRPAJumpPeriod
	// DefaultValueProfile is value specialization's value profiler.
	DefaultValueProfile = selection.DefaultValueProfile
)

// CompileMode says where fragments are compiled (CompilerOptions.Mode).
type CompileMode = engine.CompileMode

// The compile modes.
const (
	// CompileSync compiles each trace on the main thread before the guest
	// goes on: deterministic.
	CompileSync = engine.CompileSync
	// CompileAsync compiles on a service thread while the guest runs on.
	CompileAsync = engine.CompileAsync
)

// ParseCompileMode parses a compile mode's command-line name.
func ParseCompileMode(s string) (CompileMode, error) { return engine.ParseCompileMode(s) }

// DefaultCompileQueue is the service-thread compiler's queue length, in
// traces.
const DefaultCompileQueue = engine.DefaultCompileQueue

// CompilerOptions select where fragments are compiled.
type CompilerOptions = engine.CompilerOptions

// CompilerStats describe the service-thread compiler of a run.
type CompilerStats = engine.CompilerStats

// SpecializeOptions configure value specialization (dynamo mode).
type SpecializeOptions = selection.ValueOptions

// SpecializeStats count value specialization's guards and exits.
type SpecializeStats = selection.ValueStats

// An ExitReason says why native code returned to the dispatcher
// (Stats.Exits is indexed by it): the kinds of package
// rvdyn/fragment/exit, the one exit vocabulary of every layer.
type ExitReason = exit.Kind

// The exit reasons.
const (
	ExitBranch     = exit.Branch   // through an exit stub not linked to a fragment
	ExitBudget     = exit.Budget   // the instruction budget ran out at a poll point
	ExitInterp     = exit.Interp   // to interpret one instruction
	ExitIndirect   = exit.Indirect // an indirect jump missed the lookup table
	ExitSample     = exit.Sample   // the relational profiler's sample
	NumExitReasons = exit.NumKinds
)

// FragmentStat is one fragment's tallies in Stats.
type FragmentStat = engine.FragmentStat

// TopFragments is how many fragments Stats lists, hottest first.
const TopFragments = engine.TopFragments

// TraceMetrics scores the traces a run compiled against a profiling run
// (SelectOptions.Metrics).
type TraceMetrics = selection.TraceMetrics

// ClockSamples are a time-based sampled run's samples (VM.RunClockSampled).
type ClockSamples = engine.ClockSamples

// A Debugger runs a VM's guest under control (VM.Debugger): breakpoints,
// single steps, memory and registers, for the gdb remote stub.
type Debugger = engine.Debugger

// DebugStop says why a Debugger's guest stopped.
type DebugStop = engine.DebugStop

// Errors a run or a debugger returns.
var (
	// ErrTimeout is returned by Run when Options.Timeout expires before
	// the guest exits.
	ErrTimeout = engine.ErrTimeout
	// ErrBadAddress is a Debugger's answer for memory outside the guest.
	ErrBadAddress = engine.ErrBadAddress
)

// Mechanisms returns the names Options.Disable (and --disable) accepts,
// sorted: each turns one mechanism off for an ablation.
func Mechanisms() []string { return engine.Mechanisms() }

// A Mechanism is one mechanism Options.Disable can switch off: its name
// and what switching it off does.
type Mechanism = engine.Mechanism

// MechanismTable returns every mechanism Options.Disable can switch off,
// sorted by name, with what switching it off does (`rvdyn run
// --disable=help`, the README's table).
func MechanismTable() []Mechanism { return engine.MechanismTable() }

// The mechanisms' own options and values, of which Options is composed,
// under the names a caller of this package uses; each is documented in
// its package.
type (
	// NETOptions are Options.NET: the prediction delay, the longest
	// trace and the online prediction scheme (net.Options).
	NETOptions = net.Options
	// Predict is the online prediction scheme: PredictNET or PredictPath.
	Predict = net.Predict
	// CacheOptions are Options.Cache: the code cache's capacity and its
	// linking switches (codecache.Options).
	CacheOptions = codecache.Options
	// Config is the guest process (Options.Config): arguments,
	// environment, standard streams, address space, stack, root
	// directory, loader prefix, random seed (interp.Config).
	Config = interp.Config
	// Machine is the guest machine a VM runs (VM.Machine): registers,
	// memory, retired instructions, system call counts (interp.Machine).
	Machine = interp.Machine
	// Fault is the error Run returns for a guest fault: its kind (and
	// signal), pc and address (interp.Fault).
	Fault = interp.Fault
	// GCOptions are Options.GC: who collects a guest heap that follows
	// the heap contract, and how (gcassist.Options).
	GCOptions = gcassist.Options
	// GCMode is GCOptions.Mode: guest, stw, soft, rpa or none.
	GCMode = gcassist.Mode
	// Collector is a host collector (Options.Collector), made by
	// NewCollector.
	Collector = gcassist.Collector
)

// The online prediction schemes (NETOptions.Predict).
const (
	PredictNET  = net.PredictNET
	PredictPath = net.PredictPath
)

// Defaults of NETOptions: the prediction delay tau and the longest trace,
// in guest instructions.
const (
	DefaultDelay       = net.DefaultDelay
	DefaultMaxTraceLen = net.DefaultMaxTraceLen
)

// GCRPA is the collector mode whose store barrier is the relational
// profiler's (its queries share the profiler session).
const GCRPA = gcassist.ModeRPA

// DefaultMemSize is Config.MemSize's default: the guest address space in
// bytes.
const DefaultMemSize = interp.DefaultMemSize

// ErrLimit is returned by Run when Options.MaxInstructions is reached.
var ErrLimit = interp.ErrLimit

// DelayOf returns the NETOptions.Delay that asks for prediction delay tau,
// where tau <= 0 means 0 (the first execution is hot).
func DelayOf(tau int) int { return net.DelayOf(tau) }

// ParsePredict parses "net" or "path"; anything else is an error.
func ParsePredict(s string) (Predict, error) { return net.ParsePredict(s) }

// ParseGCMode parses a collector mode ("guest", "stw", "soft", "rpa",
// "none"); anything else is an error.
func ParseGCMode(s string) (GCMode, error) { return gcassist.ParseMode(s) }

// NewCollector returns a host collector for Options.Collector, made
// before New when a relational profiler session must carry its barrier
// query (GCRPA).
func NewCollector(opts GCOptions) *Collector { return gcassist.New(opts) }
