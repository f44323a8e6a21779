import Foundation
import NavctlCommands

// One program, two names: started as `navctl` (the Debian package installs navctl as a link to navd), it is the
// client. Each binary links the Swift runtime and Foundation statically (about 70 MB), so one binary instead of
// two halves the package on the vehicle.
if (CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent }) == "navctl" {
    await NavCtl.runAsRoot()
} else {
    await Navd.runAsRoot()
}
