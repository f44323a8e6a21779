import Foundation
import Testing
import TestSupport

/// navd's Debian package on a booted Debian 12: install, reinstall, upgrade to a rebuilt package with the
/// administrator's configuration kept and the running navd restarted, remove, purge.
@Suite("the Debian package", .serialized)
struct PackageLifecycleTests {
    @Test("installs, reinstalls, upgrades keeping the edited conffile, removes and purges cleanly")
    func lifecycle() async throws {
        let system = try await BootedSystem()
        defer { system.shutdown() }
        let package = try SystemFixtures.package()
        let upgrade = try SystemFixtures.upgradePackage()
        let install = "DEBIAN_FRONTEND=noninteractive apt-get install -y"

        // Install: everything the package needs is resolved from the system (Depends from dpkg-shlibdeps).
        try system.must("\(install) \(package)", timeout: 180)
        #expect(try system.must("dpkg-query -W -f '${Status} ${Version}' navd") == "install ok installed \(try SystemFixtures.packageVersion())")
        // The binary's relative relocations are packed (DT_RELR): it loads only with glibc 2.36 or newer, which
        // dpkg-shlibdeps does not see; the package says so itself.
        #expect(try system.must("dpkg-query -W -f '${Depends}' navd").contains("libc6 (>= 2.36)"))
        let groups = try system.must("id -nG navd").split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(groups.contains("navd") && groups.contains("dialout"), "navd's groups: \(groups)")
        #expect(try system.must("getent passwd navd").contains("/usr/sbin/nologin"))
        // The configuration may hold API keys: root and navd's group only; the control group exists and the
        // shipped configuration names it (socket readers are not controllers).
        #expect(try system.run("stat -c '%a %U:%G' /etc/navd/navd.toml").trimmed == "640 root:navd")
        #expect(try system.run("getent group navd-control").succeeded)
        #expect(try system.must("grep '^control_groups' /etc/navd/navd.toml").contains(#"["navd-control"]"#))
        for path in [
            "/usr/bin/navd", "/usr/bin/navctl", "/lib/systemd/system/navd.service", "/lib/systemd/system/navd-speak.service",
            "/lib/udev/rules.d/60-navd-gnss.rules",
            "/etc/navd/navd.toml", "/usr/share/man/man8/navd.8.gz", "/usr/share/man/man1/navctl.1.gz", "/usr/share/man/man5/navd.toml.5.gz",
            "/usr/share/bash-completion/completions/navctl", "/usr/share/zsh/vendor-completions/_navctl",
            "/usr/share/fish/vendor_completions.d/navctl.fish",
            "/usr/share/doc/navd/copyright", "/usr/share/doc/navd/deployment.md.gz",
        ] {
            #expect(try system.run("test -f \(path)").succeeded, "\(path) is not installed")
        }
        // One binary: navctl is navd under another name (and every navctl call in these tests goes through it).
        #expect(try system.must("readlink /usr/bin/navctl").trimmingCharacters(in: .whitespacesAndNewlines) == "navd")
        #expect(try system.must("navctl --help").contains("Command-line client and field-testing tools for navd"))
        // No Swift runtime on the vehicle: every library the binaries load is on the system.
        let libraries = try system.must("ldd /usr/bin/navd /usr/bin/navctl")
        #expect(!libraries.contains("not found") && !libraries.contains("libswift"), "\(libraries)")
        // Nor Foundation or ICU inside it (FoundationEssentials carries what navd uses): no type of the Foundation
        // module, no ICU data. A navd that linked Foundation held both (6 and 1 of these markers).
        #expect(try system.run("grep -c -a 10Foundation /usr/bin/navd").trimmed == "0")
        #expect(try system.run("grep -c -a icudt /usr/bin/navd").trimmed == "0")
        #expect(try system.must("navd --version").trimmingCharacters(in: .whitespacesAndNewlines) == String(try SystemFixtures.packageVersion().split(separator: "-")[0]))
        #expect(try system.must("navd check-config /etc/navd/navd.toml; echo status=$?").contains("status=0"))
        // Nothing is enabled or started that the administrator did not ask for.
        #expect(try system.run("systemctl is-enabled navd.service").trimmed == "disabled")
        #expect(try system.run("systemctl is-enabled navd-speak.service").trimmed == "disabled")
        #expect(try system.must("systemctl show -p ExecStart --value navd-speak.service").contains("path=/usr/bin/navctl"))
        #expect(try system.property("ActiveState") == "inactive")
        #expect(try system.must("systemctl show -p ExecStart --value navd.service").contains("path=/usr/bin/navd"))

        // The same version again.
        try system.must("\(install) --reinstall \(package)", timeout: 120)

        // The administrator edits the configuration and runs navd.
        try system.must("sed -i 's/^level = \"info\"/level = \"debug\"/' /etc/navd/navd.toml && echo '# edited on the vehicle' >>/etc/navd/navd.toml")
        try system.must("systemctl enable --now navd.service", timeout: 60)
        let before = try system.property("MainPID")
        #expect(try system.run("test -d /var/lib/navd").succeeded)

        // The rebuilt package: no conffile prompt (stdin is closed), the edit survives, navd is restarted.
        try system.must("\(install) \(upgrade) </dev/null", timeout: 180)
        let upgradedVersion = ((ProcessInfo.processInfo.environment["NAVD_DEB_UPGRADE"] ?? "") as NSString).lastPathComponent.split(separator: "_")[1]
        #expect(try system.must("dpkg-query -W -f '${Version}' navd") == String(upgradedVersion))
        let config = try system.must("cat /etc/navd/navd.toml")
        #expect(config.contains("# edited on the vehicle") && config.contains(#"level = "debug""#))
        #expect(try system.run("stat -c '%a %U:%G' /etc/navd/navd.toml").trimmed == "640 root:navd", "the upgrade changed the file's rights")
        #expect(try system.run("test -e /etc/navd/navd.toml.dpkg-dist").succeeded == false)
        #expect(try system.run("systemctl is-enabled navd.service").trimmed == "enabled")
        #expect(try system.property("ActiveState") == "active")
        #expect(try system.property("MainPID") != before, "the upgrade did not restart navd")

        // Remove: navd is stopped, the configuration stays.
        try system.must("DEBIAN_FRONTEND=noninteractive apt-get remove -y navd", timeout: 120)
        #expect(try system.property("ActiveState") != "active")
        #expect(try !system.run("test -e /usr/bin/navd").succeeded)
        #expect(try system.run("test -f /etc/navd/navd.toml").succeeded, "remove deleted the configuration")
        #expect(try system.must("dpkg-query -W -f '${Status}' navd") == "deinstall ok config-files")

        // Purge: the journal's directory, the configuration and the enablement go; the system user stays.
        try system.must("DEBIAN_FRONTEND=noninteractive apt-get purge -y navd", timeout: 120)
        for path in ["/var/lib/navd", "/etc/navd", "/etc/systemd/system/multi-user.target.wants/navd.service"] {
            #expect(try !system.run("test -e \(path)").succeeded, "\(path) survived the purge")
        }
        #expect(try !system.run("dpkg-statoverride --list /etc/navd/navd.toml").succeeded, "the stat override survived the purge")
        #expect(try !system.run("dpkg-query -W navd").succeeded)
        #expect(try system.run("getent passwd navd").succeeded)
    }

    @Test("lintian finds no errors in the package")
    func lintianHasNoErrors() throws {
        let deb = try #require(ProcessInfo.processInfo.environment["NAVD_DEB"], "NAVD_DEB is not set: run scripts/test")
        let lintian = try ExternalProcess("lintian", ["--tag-display-limit", "0", deb])
        let status = try #require(lintian.waitForExit(timeout: 300), "lintian did not finish")
        let errors = lintian.output.split(separator: "\n").filter { $0.hasPrefix("E:") }
        #expect(errors.isEmpty, "\(lintian.output)")
        // lintian exits 2 on an error tag (warnings alone: 0); anything else means it did not check the package.
        #expect(status == 0, "\(lintian.output)")
    }
}
