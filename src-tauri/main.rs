fn main() { toolscope_app::run() }
