profile-997 /arg0/ { @[stack()] = count(); }
tick-1s { printa("%-20s %@d\n", @); trunc(@, 5); normalize(@, 2); clear(@); }
