# Syntax and consistency check of an XDC file without Vivado (tclsh xdc_check.tcl FILE.xdc):
# runs the file as Tcl with the few XDC commands it may use defined as checkers, and fails on an
# unknown command, a malformed argument list, a pin given to two ports or a port given two pins.
if {$argc != 1} { puts stderr "usage: tclsh xdc_check.tcl FILE.xdc"; exit 2 }
set pin_of [dict create]
set port_of [dict create]
set clocks {}
proc current_design {} { return design }
proc get_ports {name} {
    if {![regexp {^[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?$} $name]} { error "bad port name '$name'" }
    return [list port $name]
}
proc get_clocks {args} {
    set names [lindex $args end]
    foreach n $names { if {[lsearch $::clocks $n] < 0} { error "unknown clock '$n'" } }
    return [list clocks $names]
}
proc set_property {args} {
    if {[llength $args] != 3} { error "set_property takes NAME VALUE OBJECT: $args" }
    lassign $args name value obj
    if {$name eq "PACKAGE_PIN"} {
        lassign $obj kind port
        if {$kind ne "port"} { error "PACKAGE_PIN on a non-port" }
        if {![regexp {^[A-Z]{1,2}[0-9]{1,2}$} $value]} { error "bad package pin '$value'" }
        if {[dict exists $::pin_of $port]} { error "port $port has two pins" }
        if {[dict exists $::port_of $value]} { error "pin $value given to [dict get $::port_of $value] and $port" }
        dict set ::pin_of $port $value
        dict set ::port_of $value $port
    }
}
proc create_clock {args} {
    set i [lsearch $args -period]; set j [lsearch $args -name]
    if {$i < 0 || $j < 0} { error "create_clock needs -period and -name" }
    set period [lindex $args [expr {$i + 1}]]
    if {![string is double -strict $period] || $period <= 0} { error "bad period '$period'" }
    lappend ::clocks [lindex $args [expr {$j + 1}]]
}
proc set_clock_groups {args} {
    if {[lsearch $args -asynchronous] < 0 || [llength [lsearch -all $args -group]] < 2} {
        error "set_clock_groups: expected -asynchronous and two -group"
    }
}
proc set_false_path {args} {
    if {[lsearch -regexp $args {^-(from|to|through)$}] < 0} { error "set_false_path without -from/-to" }
}
if {[catch {source [lindex $argv 0]} err]} { puts stderr "[lindex $argv 0]: $err"; exit 1 }
puts "[lindex $argv 0]: [dict size $pin_of] ports placed, clocks: $clocks"
