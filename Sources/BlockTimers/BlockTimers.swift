// Placeholder until the BlockTimers sources land.
import TimerLoop
