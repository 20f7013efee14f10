BEGIN { this->m = (struct mutex *)alloca(32); printf("%d %p %d %d\n", mutex_owned(this->m), mutex_owner(this->m), mutex_type_adaptive(this->m), mutex_type_spin(this->m)); }
syscall::read:entry /getmajor(0xabcdef0123456789ll) == 0x234 && getminor(arg0) < 4/ { @[getmajor(arg2), getminor(arg2)] = count(); printf("[%s] [%s]\n", d_path(&curthread->fs->pwd), d_path(&curthread->fs->root)); }
syscall::write:entry /pid == $target/ { this->l = (rwlock_t *)copyin(arg1, 8); printf("%d%d%d %x\n", rw_read_held(this->l), rw_write_held(this->l), rw_iswriter(this->l), (uint64_t)mutex_owner((struct mutex *)this->l)); }
syscall::write:return { self->owner = mutex_owner((struct mutex *)alloca(32)); trace(mutex_owned((void *)arg1)); trace(d_path((struct path *)arg0)); }
syscall::write:entry /pid == $target && (arg2 == 6 || arg2 == 20)/ { printf("%s\n", link_ntop(arg2 == 6 ? ARPHRD_ETHER : ARPHRD_INFINIBAND, copyin(arg1, arg2))); @l[link_ntop(arg0, alloca(20))] = count(); }
syscall::openat:entry /cleanpath(copyinstr(arg1)) != "/" && cleanpath("a/../..") == ".."/ { @c[cleanpath(copyinstr(arg1))] = count(); trace(cleanpath(strjoin(execname, "/../x"))); }
