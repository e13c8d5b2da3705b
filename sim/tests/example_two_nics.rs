//! The program users copy to start, `sim/examples/two_nics.rs`, must keep compiling and
//! working: it runs here on the Verilator engine (its default), and fails if any completion
//! or byte is wrong.

#[path = "../examples/two_nics.rs"]
mod two_nics;

#[test]
fn two_nics_example_writes_and_sends() {
    if !ferroce_testkit::require_tool("verilator")
        || !ferroce_testkit::require_tool("make")
        || !ferroce_testkit::require_tool("g++")
    {
        return;
    }
    two_nics::main().expect("the two_nics example");
}
