"""Where lines and bytes come from: files, stdin, compressed inputs; and what an unreadable input looks like."""
