import NavctlCommands

await NavCtl.runAsRoot()
