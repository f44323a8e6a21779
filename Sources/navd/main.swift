import FoundationEssentials
import Glibc
import NavctlCommands
import NavigationCore

// One program, two names: started as `navctl` (the Debian package installs navctl as a link to navd), it is the
// client. Each binary links the Swift runtime statically, so one binary instead of
// two halves the package on the vehicle.
if (CommandLine.arguments.first.map { PathText.lastComponent(of: $0) }) == "navctl" {
    await NavCtl.runAsRoot()
} else {
    await Navd.runAsRoot()
}
